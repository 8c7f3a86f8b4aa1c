// Deposits section: the newest deposits, kept live by the `depositUpdated` subscription. A new
// deposit becomes a new row, a status change updates its row in place; after every (re)connect
// the list is fetched again so changes made while the socket was down are not missed.

import { gql } from './api.js';
import { DEPOSITS_QUERY, DEPOSIT_UPDATED_SUBSCRIPTION } from './documents.js';
import { byId, h, Messages, setText, syncRows } from './dom.js';
import { formatTime, orDash } from './format.js';
import type { ConnectionState, GraphQLWsClient } from './ws-client.js';

export interface Deposit {
  id: string;
  depositId: string;
  onrampId: string;
  amountNgn: string;
  amountAsset: string | null;
  asset: string | null;
  chain: string | null;
  status: string;
  txHash: string | null;
  flagReason: string | null;
  failureReason: string | null;
  bankReference: string;
  createdAt: string;
  updatedAt: string;
  settledAt: string | null;
}

const PAGE_SIZE = 50;
/** Rows kept on the page: the fetched page plus deposits that arrived live since. */
const MAX_ROWS = 200;

const TONES: Record<string, string> = {
  SETTLED: 'ok',
  PENDING_FX: 'info',
  PENDING_WITHDRAWAL: 'info',
  FLAGGED: 'warn',
  FAILED: 'bad',
  REVERSED: 'bad',
};

const LIVE_LABELS: Record<ConnectionState, string> = {
  connecting: 'Connecting…',
  connected: 'Live',
  reconnecting: 'Reconnecting…',
  closed: 'Offline',
};

export interface DepositListeners {
  /** A deposit was added or changed, by the subscription (`live`) or by a refetch. */
  onChange(deposit: Deposit, previous: Deposit | undefined, live: boolean): void;
  /** The Details button of a row. */
  onDetails(depositId: string): void;
}

export class DepositsSection {
  private readonly messages = Messages.of('deposits');
  private readonly tbody = byId<HTMLTableElement>('deposits-table').tBodies[0];
  private readonly empty = byId('deposits-empty');
  private readonly live = byId('live-state');
  private readonly deposits = new Map<string, Deposit>();
  private unsubscribe: (() => void) | null = null;
  private loadSeq = 0;
  private renderQueued = false;
  private readonly fresh = new Set<string>();
  private selected: string | null = null;

  constructor(private readonly listeners: DepositListeners) {}

  setConnectionState(state: ConnectionState): void {
    this.live.dataset.state = state;
    setText(this.live, LIVE_LABELS[state]);
  }

  /** Subscribes on `client` (re-sent by the client after each reconnect). */
  subscribe(client: GraphQLWsClient): void {
    this.unsubscribe?.();
    this.unsubscribe = client.subscribe<{ depositUpdated: Deposit }>(
      DEPOSIT_UPDATED_SUBSCRIPTION,
      {},
      {
        next: (result) => {
          if (result.errors?.length) {
            this.messages.error(`Live updates: ${result.errors[0].message}`);
            return;
          }
          if (result.data?.depositUpdated) this.merge([result.data.depositUpdated], true);
        },
        error: (errors) => {
          this.messages.error(`Live updates stopped: ${errors[0]?.message ?? 'unknown error'}`);
          // Try again shortly on the same socket; the list is refetched to cover the gap.
          setTimeout(() => {
            if (this.unsubscribe) {
              this.subscribe(client);
              void this.load();
            }
          }, 5_000);
        },
      },
    );
  }

  async load(): Promise<void> {
    const seq = ++this.loadSeq;
    try {
      const data = await gql<{ deposits: { edges: { node: Deposit }[] } }>(DEPOSITS_QUERY, {
        first: PAGE_SIZE,
      });
      if (seq !== this.loadSeq) return;
      this.merge(
        data.deposits.edges.map((edge) => edge.node),
        false,
      );
    } catch (error) {
      this.messages.error(error);
    }
  }

  get(depositId: string): Deposit | undefined {
    return this.deposits.get(depositId);
  }

  setSelected(depositId: string | null): void {
    this.selected = depositId;
    for (const row of Array.from(this.tbody.rows)) {
      row.classList.toggle('is-selected', row.dataset.depositId === depositId);
    }
  }

  reset(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.loadSeq++;
    this.deposits.clear();
    this.fresh.clear();
    this.selected = null;
    this.render();
    this.messages.clear();
    this.setConnectionState('connecting');
  }

  /** Newer `updatedAt` wins, so a late refetch never rolls a live update back. */
  private merge(incoming: Deposit[], live: boolean): void {
    for (const deposit of incoming) {
      const previous = this.deposits.get(deposit.depositId);
      if (previous && Date.parse(previous.updatedAt) > Date.parse(deposit.updatedAt)) continue;
      if (previous && sameDeposit(previous, deposit)) continue;
      this.deposits.set(deposit.depositId, { ...previous, ...deposit });
      if (!previous && live) this.fresh.add(deposit.depositId);
      this.listeners.onChange(deposit, previous, live);
    }
    if (live) this.messages.clear();
    this.queueRender();
  }

  private queueRender(): void {
    if (this.renderQueued) return;
    this.renderQueued = true;
    queueMicrotask(() => {
      this.renderQueued = false;
      this.render();
    });
  }

  private sorted(): Deposit[] {
    const list = Array.from(this.deposits.values()).sort(
      (a, b) =>
        Date.parse(b.createdAt) - Date.parse(a.createdAt) || (b.depositId < a.depositId ? -1 : 1),
    );
    for (const dropped of list.splice(MAX_ROWS)) this.deposits.delete(dropped.depositId);
    return list;
  }

  private render(): void {
    const list = this.sorted();
    syncRows(
      this.tbody,
      list,
      (d) => d.depositId,
      'data-deposit-id',
      (d) => this.createRow(d),
      (row, d) => this.fill(row, d),
    );
    this.fresh.clear();
    this.empty.hidden = list.length > 0;
  }

  private createRow(d: Deposit): HTMLTableRowElement {
    const details = h('button', { type: 'button', class: 'btn btn-small' }, 'Details');
    details.addEventListener('click', () => this.listeners.onDetails(d.depositId));
    const row = h(
      'tr',
      {},
      h('td', { class: 'mono' }),
      h('td', { class: 'status' }, h('span', { class: 'pill' })),
      h('td', { class: 'num mono' }),
      h('td', { class: 'num mono' }),
      h('td'),
      h('td', { class: 'mono' }),
      h('td', { class: 'mono' }),
      h('td'),
      h('td', {}, details),
    );
    if (this.fresh.has(d.depositId)) row.classList.add('is-new');
    if (d.depositId === this.selected) row.classList.add('is-selected');
    this.fill(row, d);
    return row;
  }

  private fill(row: HTMLTableRowElement, d: Deposit): void {
    const cells = row.cells;
    setText(cells[0], d.depositId);
    const status = cells[1].firstElementChild as HTMLElement;
    setText(status, d.status);
    status.dataset.tone = TONES[d.status] ?? 'info';
    setText(cells[2], d.amountNgn);
    setText(cells[3], d.amountAsset ? `${d.amountAsset} ${d.asset ?? ''}`.trim() : '—');
    setText(cells[4], orDash(d.chain));
    setText(cells[5], d.onrampId);
    setText(cells[6], d.bankReference);
    setText(cells[7], formatTime(d.updatedAt));
    cells[7].title = d.updatedAt;
  }
}

function sameDeposit(a: Deposit, b: Deposit): boolean {
  return (Object.keys(b) as (keyof Deposit)[]).every((key) => a[key] === b[key]);
}
