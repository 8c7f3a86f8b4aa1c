// Reports panel: the reconciliation CSV exports (GET /v1/reports/deposits.csv and ledger.csv)
// for a period, downloaded with the session's credentials and saved under the server's file
// name. It builds its own markup inside its <section>; the server checks the range.

import { download } from './api.js';
import { busy, byId, h, Messages } from './dom.js';

const LAGOS = 'Africa/Lagos';

/** The current month in Africa/Lagos, as the dates its first and last day. */
export function currentLagosMonth(now: Date = new Date()): { from: string; to: string } {
  // en-CA formats as YYYY-MM-DD.
  const today = new Intl.DateTimeFormat('en-CA', {
    timeZone: LAGOS,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(now);
  const [year, month] = today.split('-').map(Number);
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const prefix = today.slice(0, 8);
  return { from: `${prefix}01`, to: `${prefix}${String(lastDay).padStart(2, '0')}` };
}

/** Hands a downloaded file to the browser's "save", then lets go of it. */
function save(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: fileName, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  // The click starts the download synchronously; revoke once it had its turn.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export class ReportsSection {
  private readonly section = byId('reports-section');
  private readonly from = h('input', { id: 'report-from', type: 'date', required: true });
  private readonly to = h('input', { id: 'report-to', type: 'date', required: true });
  private readonly messages: Messages;

  constructor() {
    const status = h('p', { id: 'reports-status', class: 'msg', role: 'status' });
    const alert = h('p', { id: 'reports-alert', class: 'msg msg-error', role: 'alert' });
    alert.hidden = true;
    this.messages = new Messages(status, alert);
    const buttons = [
      this.button('deposits', 'Download deposits.csv'),
      this.button('ledger', 'Download ledger.csv'),
    ];
    this.section.append(
      h('div', { class: 'card-head' }, h('h2', { id: 'reports-heading' }, 'Reports')),
      h(
        'p',
        { class: 'muted' },
        'Reconciliation exports for a period (Africa/Lagos dates, both included, at most 366 days).',
      ),
      h(
        'div',
        { class: 'inline-form' },
        field('report-from', 'From', this.from),
        field('report-to', 'To', this.to),
        ...buttons,
      ),
      status,
      alert,
    );
    this.reset();
  }

  reset(): void {
    const month = currentLagosMonth();
    this.from.value = month.from;
    this.to.value = month.to;
    this.messages.clear();
  }

  private button(report: 'deposits' | 'ledger', label: string): HTMLButtonElement {
    const button = h('button', { type: 'button', class: 'btn' }, label);
    button.addEventListener('click', () => {
      void busy(button, () => this.fetch(report));
    });
    return button;
  }

  private async fetch(report: 'deposits' | 'ledger'): Promise<void> {
    this.messages.clear();
    const query = new URLSearchParams({ from: this.from.value, to: this.to.value });
    try {
      const file = await download(`/v1/reports/${report}.csv?${query.toString()}`);
      const fileName = file.fileName ?? `${report}.csv`;
      save(file.blob, fileName);
      this.messages.info(`Downloaded ${fileName}.`);
    } catch (error) {
      this.messages.error(error);
    }
  }
}

function field(id: string, text: string, input: HTMLElement): HTMLDivElement {
  return h('div', { class: 'field' }, h('label', { for: id }, text), input);
}
