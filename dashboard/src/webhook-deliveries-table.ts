// A webhook delivery log as a table (event, status, attempts, last code, next attempt, created,
// Replay): the first endpoint's log in webhooks.ts and each endpoint's in webhook-endpoints.ts.

import { h, setText, syncRows } from './dom.js';
import { formatTime, orDash } from './format.js';

export interface Attempt {
  number: number;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  attemptedAt: string;
}

export interface Delivery {
  endpointId?: string | null;
  id: string;
  eventId: string;
  event: string;
  status: string;
  attemptCount: number;
  lastStatusCode: number | null;
  nextAttemptAt: string | null;
  createdAt: string;
  replay: boolean;
  attempts: Attempt[];
}

const TONES: Record<string, string> = { SUCCEEDED: 'ok', PENDING: 'info', FAILED: 'bad' };

export class DeliveriesTable {
  private shown: readonly Delivery[] = [];

  constructor(
    private readonly tbody: HTMLTableSectionElement,
    private readonly empty: HTMLElement,
    private readonly onReplay: (delivery: Delivery, button: HTMLButtonElement) => Promise<void>,
  ) {}

  render(deliveries: readonly Delivery[]): void {
    syncRows(
      this.tbody,
      deliveries,
      (d) => d.id,
      'data-delivery-id',
      (d) => {
        const replay = h('button', { type: 'button', class: 'btn btn-small' }, 'Replay');
        const row = h(
          'tr',
          {},
          h('td', { class: 'mono' }),
          h('td', {}, h('span', { class: 'pill' })),
          h('td'),
          h('td', { class: 'num' }),
          h('td'),
          h('td'),
          h('td', {}, replay),
        );
        replay.addEventListener('click', () => {
          const current = this.shown.find((x) => x.id === row.dataset.deliveryId) ?? d;
          void this.onReplay(current, replay);
        });
        this.fillDelivery(row, d);
        return row;
      },
      (row, d) => this.fillDelivery(row, d),
    );
    this.shown = deliveries;
    this.empty.hidden = deliveries.length > 0;
  }

  private fillDelivery(row: HTMLTableRowElement, d: Delivery): void {
    const cells = row.cells;
    setText(cells[0], d.replay ? `${d.event} (replay)` : d.event);
    cells[0].title = `Event ${d.eventId}`;
    const status = cells[1].firstElementChild as HTMLElement;
    setText(status, d.status);
    status.dataset.tone = TONES[d.status] ?? 'info';
    // Attempts: the count, with every attempt in a disclosure.
    const attempts = cells[2];
    const signature = `${d.attemptCount}:${d.attempts.length}`;
    if (attempts.dataset.signature !== signature) {
      attempts.dataset.signature = signature;
      const wasOpen = attempts.querySelector('details')?.open ?? false;
      attempts.replaceChildren(
        d.attempts.length
          ? h(
              'details',
              { class: 'attempts', open: wasOpen },
              h('summary', {}, String(d.attemptCount)),
              h(
                'ol',
                {},
                ...d.attempts.map((a) =>
                  h(
                    'li',
                    {},
                    `#${a.number} ${formatTime(a.attemptedAt)}: ` +
                      `${a.statusCode ?? 'no response'}` +
                      `${a.error ? ` (${a.error})` : ''}, ${a.latencyMs} ms`,
                  ),
                ),
              ),
            )
          : String(d.attemptCount),
      );
    }
    setText(cells[3], orDash(d.lastStatusCode));
    setText(cells[4], d.nextAttemptAt ? formatTime(d.nextAttemptAt) : '—');
    setText(cells[5], formatTime(d.createdAt));
  }
}
