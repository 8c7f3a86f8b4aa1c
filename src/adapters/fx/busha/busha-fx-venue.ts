import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../../../clock';
import { dec } from '../../../domain/money';
import {
  FxPermanentFailure,
  FxTemporaryFailure,
  type FxFill,
  type FxOrder,
  type FxOutcome,
  type FxVenue,
} from '../fx-venue';
import {
  BushaRefusal,
  classifyRefusal,
  fillOf,
  transferState,
  type BushaTransfer,
} from './busha-answers';
import type { BushaClient } from './busha-client';
import { FxOrderStore, type FxOrderRow } from './fx-order-store';

export interface BushaVenueOptions {
  /** What NGN is sold for (USDT, USDC or USD). */
  targetCurrency: string;
  /** An order's lease; more than one Busha call's timeout (each write renews it). */
  leaseMs: number;
  /** Waits between reads of a transfer that is not final yet (then: unknown, retried later). */
  pollDelaysMs?: number[];
  /** Pages of GET /v1/transfers read when looking an order's transfer up. */
  lookupPages?: number;
  /** Orders of a batch at the venue at once. */
  concurrency?: number;
}

/** How many quotes one placement asks for when each expires before it is executed. */
const QUOTES_PER_PLACEMENT = 3;
/** Transfers created this long before the order's first quote cannot be its own. */
const LOOKUP_SLACK_MS = 5 * 60_000;

/**
 * Sells NGN at Busha: a quote (POST /v1/quotes, balance to balance), then its execution
 * (POST /v1/transfers {quote_id}). Busha takes no client reference, so idempotency by
 * `clientOrderId` is kept here (docs/providers-fx.md): every quote id is recorded in
 * `fx_venue_orders` before it is executed, and a placement that finds quotes recorded but no
 * transfer looks for a transfer of any of them at the venue before executing anything. A new
 * quote replaces one only once Busha has refused to execute the old one (expired) and no
 * transfer of it exists. One process works on an order at a time (a lease).
 */
export class BushaFxVenue implements FxVenue {
  readonly name = 'busha';
  private readonly store: FxOrderStore;

  constructor(
    em: EntityManager,
    clock: Clock,
    private readonly client: BushaClient,
    private readonly options: BushaVenueOptions,
  ) {
    this.store = new FxOrderStore(em, clock, 'busha', options.leaseMs);
  }

  async execute(order: FxOrder): Promise<FxFill> {
    const row = await this.store.acquire(order);
    if (row.status === 'FILLED') {
      return { usdBought: dec(row.usdBought!), venueReference: row.transferId! };
    }
    try {
      return await this.place(order, row);
    } finally {
      await this.store.release(order.clientOrderId).catch(() => undefined);
    }
  }

  /** A batch, a few orders at a time (Busha's rate limit is per minute, undocumented in size). */
  async executeAll(orders: FxOrder[]): Promise<FxOutcome[]> {
    const outcomes: FxOutcome[] = new Array(orders.length);
    let next = 0;
    const worker = async () => {
      while (next < orders.length) {
        const i = next;
        next += 1;
        outcomes[i] = await this.execute(orders[i]).then(
          (fill): FxOutcome => ({ fill }),
          (error: unknown): FxOutcome => ({ error }),
        );
      }
    };
    const workers = Math.min(this.options.concurrency ?? 4, orders.length);
    await Promise.all(Array.from({ length: workers }, worker));
    return outcomes;
  }

  private async place(order: FxOrder, row: FxOrderRow): Promise<FxFill> {
    const id = order.clientOrderId;
    // A transfer this order already has (recorded, or executed before a crash).
    let transfer: BushaTransfer | undefined;
    if (row.transferId) {
      await this.store.renew(id);
      transfer = await this.client.getTransfer(row.transferId);
    } else if (row.quoteIds.length > 0) {
      transfer = await this.lookUp(id, row.quoteIds, row.createdAt);
    }
    if (transfer) return this.follow(order, transfer);

    let quoteId = row.quoteId;
    for (let quotes = 0; quotes < QUOTES_PER_PLACEMENT; quotes += 1) {
      if (!quoteId) quoteId = await this.quote(order);
      await this.store.markExecuting(id);
      try {
        transfer = await this.client.createTransfer(quoteId);
      } catch (error) {
        if (!(error instanceof BushaRefusal)) throw error; // no answer: unknown, retried
        const refusal = classifyRefusal(error, 'transfer');
        // Whatever the refusal, a transfer of one of the order's quotes may exist (an earlier
        // process's execute, or this one's that failed after executing): it is the order's.
        const current = await this.store.read(id);
        const found = await this.lookUp(id, current?.quoteIds ?? [quoteId], row.createdAt);
        if (found) return this.follow(order, found);
        if (refusal === 'quote_expired') {
          await this.store.dropQuote(id);
          quoteId = null;
          continue;
        }
        if (refusal === 'temporary') throw new FxTemporaryFailure(error.message);
        if (refusal === 'permanent') throw new FxPermanentFailure(error.message);
        throw error; // a 5xx to the execute, or a quote used by no transfer found: unknown
      }
      await this.store.recordTransfer(id, transfer.id);
      return this.follow(order, transfer);
    }
    throw new Error(`FX order ${id}: ${QUOTES_PER_PLACEMENT} quotes expired before execution`);
  }

  /** A new quote, recorded before anything executes it. */
  private async quote(order: FxOrder): Promise<string> {
    await this.store.renew(order.clientOrderId);
    let quote;
    try {
      quote = await this.client.createQuote({
        sourceCurrency: 'NGN',
        targetCurrency: this.options.targetCurrency,
        sourceAmount: order.amountNgn.toFixed(2),
      });
    } catch (error) {
      // A quote moves no money: any refusal is the venue's definite answer.
      if (!(error instanceof BushaRefusal)) throw error;
      if (classifyRefusal(error, 'quote') === 'permanent') {
        throw new FxPermanentFailure(error.message);
      }
      throw new FxTemporaryFailure(error.message);
    }
    await this.store.recordQuote(order.clientOrderId, quote.id, new Date(quote.expires_at));
    return quote.id;
  }

  /** The order's transfer among the newest pages of GET /v1/transfers, if there is one. */
  private async lookUp(
    clientOrderId: string,
    quoteIds: string[],
    orderCreatedAt: Date,
  ): Promise<BushaTransfer | undefined> {
    const ours = new Set(quoteIds);
    const oldest = orderCreatedAt.getTime() - LOOKUP_SLACK_MS;
    let cursor: string | undefined;
    for (let page = 0; page < (this.options.lookupPages ?? 20); page += 1) {
      await this.store.renew(clientOrderId);
      const { transfers, nextCursor } = await this.client.listTransfers(cursor);
      // A cancelled transfer converted nothing: the order may still convert through another.
      const found = transfers.find(
        (t) => ours.has(t.quote_id) && transferState(t.status) !== 'cancelled',
      );
      if (found) {
        await this.store.recordTransfer(clientOrderId, found.id);
        return found;
      }
      const older = transfers.every(
        (t) => t.created_at !== undefined && new Date(t.created_at).getTime() < oldest,
      );
      if (!nextCursor || transfers.length === 0 || older) return undefined;
      cursor = nextCursor;
    }
    return undefined;
  }

  /** Reads the transfer until it is final: converted (the fill), or ended without converting. */
  private async follow(order: FxOrder, first: BushaTransfer): Promise<FxFill> {
    const id = order.clientOrderId;
    let transfer = first;
    for (const delay of [0, ...(this.options.pollDelaysMs ?? [250, 500, 1000, 2000])]) {
      if (delay > 0) {
        await new Promise((resolve) => setTimeout(resolve, delay));
        await this.store.renew(id);
        transfer = await this.client.getTransfer(transfer.id);
      }
      const state = transferState(transfer.status);
      if (state === 'converted') {
        const fill = fillOf(transfer, order, this.options.targetCurrency);
        await this.store.recordFill(id, fill);
        return fill;
      }
      if (state === 'cancelled') {
        await this.store.markCancelled(id);
        throw new FxTemporaryFailure(
          `Busha transfer ${transfer.id} ended ${transfer.status} without converting`,
        );
      }
    }
    // Still in progress: recorded, so the next placement reads this transfer again.
    throw new Error(`Busha transfer ${transfer.id} is still ${transfer.status}`);
  }
}
