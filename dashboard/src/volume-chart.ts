// Settled volume: a bar chart of USD settled per day (Lagos days), drawn as inline SVG. Amounts
// stay strings; Number() is used only to size the bars.

import { gql } from './api.js';
import { SETTLED_VOLUME_QUERY } from './documents.js';
import { byId, Messages, setText, svg } from './dom.js';
import { sumDecimals } from './format.js';

interface VolumeDay {
  day: string;
  usd: string;
  count: number;
}

const DAYS = 14;
const HEIGHT = 200;
const MIN_WIDTH = 280;
const DEFAULT_WIDTH = 700;
const PAD = { top: 18, right: 8, bottom: 26, left: 8 };

export class VolumeChartSection {
  private readonly container = byId('volume-chart');
  private readonly total = byId('volume-total');
  private readonly messages = Messages.of('volume');
  private loading: Promise<void> | null = null;
  private again = false;
  private days: VolumeDay[] = [];
  private drawnWidth = 0;

  constructor() {
    // The SVG is drawn at the container's real width, so text keeps its size on phones.
    if (typeof ResizeObserver !== 'undefined') {
      new ResizeObserver(() => {
        if (this.width() !== this.drawnWidth) this.render(this.days);
      }).observe(this.container);
    }
  }

  private width(): number {
    const width = Math.round(this.container.clientWidth);
    return width > 0 ? Math.max(MIN_WIDTH, width) : DEFAULT_WIDTH;
  }

  load(): Promise<void> {
    if (this.loading) {
      // A refresh asked for during a load runs once more afterwards (it may include new data).
      this.again = true;
      return this.loading;
    }
    this.loading = gql<{ settledVolume: VolumeDay[] }>(SETTLED_VOLUME_QUERY, { days: DAYS })
      .then(({ settledVolume }) => {
        this.render(settledVolume);
        this.messages.clear();
      })
      .catch((error: unknown) => this.messages.error(error))
      .finally(() => {
        this.loading = null;
        if (this.again) {
          this.again = false;
          void this.load();
        }
      });
    return this.loading;
  }

  reset(): void {
    this.again = false;
    this.render([]);
    this.messages.clear();
  }

  private render(days: VolumeDay[]): void {
    this.days = days;
    const WIDTH = this.width();
    this.drawnWidth = WIDTH;
    setText(
      this.total,
      days.length
        ? sumDecimals(
            days.map((d) => d.usd),
            6,
          )
        : '—',
    );
    const chart = svg('svg', {
      role: 'img',
      'aria-label': 'Settled volume by day',
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      width: WIDTH,
      height: HEIGHT,
    });
    const values = days.map((d) => Math.max(0, Number(d.usd) || 0));
    const max = Math.max(0, ...values);
    const plotHeight = HEIGHT - PAD.top - PAD.bottom;
    const plotWidth = WIDTH - PAD.left - PAD.right;
    const slot = days.length ? plotWidth / days.length : plotWidth;
    const barWidth = Math.max(2, slot * 0.7);
    const baseline = HEIGHT - PAD.bottom;

    chart.append(
      svg('title', {}, 'Settled volume by day'),
      svg('line', {
        class: 'axis',
        x1: PAD.left,
        x2: WIDTH - PAD.right,
        y1: baseline,
        y2: baseline,
      }),
    );
    days.forEach((day, i) => {
      const value = values[i];
      // Non-zero days get at least 2 units so they stay visible next to a large day.
      const height = max > 0 && value > 0 ? Math.max(2, (value / max) * plotHeight) : 1;
      const x = PAD.left + i * slot + (slot - barWidth) / 2;
      chart.append(
        svg(
          'rect',
          {
            class: value > 0 ? 'bar' : 'bar is-empty',
            x: x.toFixed(1),
            y: (baseline - height).toFixed(1),
            width: barWidth.toFixed(1),
            height: height.toFixed(1),
            rx: 3,
            'data-day': day.day,
            'data-usd': day.usd,
          },
          svg(
            'title',
            {},
            `${day.day}: ${day.usd} USD, ${day.count} deposit${day.count === 1 ? '' : 's'}`,
          ),
        ),
        svg(
          'text',
          {
            class: 'label',
            x: (x + barWidth / 2).toFixed(1),
            y: HEIGHT - 8,
            'text-anchor': 'middle',
          },
          day.day.slice(8, 10) || day.day,
        ),
      );
    });
    if (max > 0) {
      const peak = days[values.indexOf(max)];
      chart.append(
        svg('text', { class: 'label', x: PAD.left, y: 12 }, `max ${peak.usd} USD (${peak.day})`),
      );
    } else if (days.length) {
      chart.append(
        svg('text', { class: 'label', x: PAD.left, y: 12 }, 'No settled deposits in this period'),
      );
    }
    this.container.replaceChildren(chart);
  }
}
