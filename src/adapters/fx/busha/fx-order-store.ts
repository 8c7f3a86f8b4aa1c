import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../../../clock';
import { FX_ORDER_LIFECYCLE, type FxOrderStatus } from '../../../domain/fx-order-lifecycle';
import { dec } from '../../../domain/money';
import { IllegalTransitionError, sqlMove, type SqlMove } from '../../../domain/transitions';
import type { FxFill, FxOrder } from '../fx-venue';

export type { FxOrderStatus } from '../../../domain/fx-order-lifecycle';

/** An order's row in `fx_venue_orders` (migration 20261128170200). */
export interface FxOrderRow {
  clientOrderId: string;
  amountNgn: string;
  status: FxOrderStatus;
  quoteId: string | null;
  quoteIds: string[];
  transferId: string | null;
  usdBought: string | null;
  createdAt: Date;
}

/** Another process works on this order now: its outcome is unknown here, retry later. */
export class FxOrderBusy extends Error {
  override readonly name = 'FxOrderBusy';
}

const COLUMNS = `client_order_id, amount_ngn::text as amount_ngn, status, quote_id, quote_ids,
  transfer_id, usd_bought::text as usd_bought, created_at`;

type Row = Record<string, unknown>;

/**
 * The one place an FX order's status is written: SQL from FX_ORDER_LIFECYCLE, a new order's
 * first status (`stored` null) or an UPDATE's SET item and the condition on the stored status
 * under which the table allows the move.
 */
export function moveFxOrder(to: FxOrderStatus, stored: string | null = 'status'): SqlMove {
  return sqlMove(FX_ORDER_LIFECYCLE, stored, to);
}

const FIRST = moveFxOrder('NEW', null);

function rowOf(r: Row): FxOrderRow {
  return {
    clientOrderId: String(r.client_order_id),
    amountNgn: String(r.amount_ngn),
    status: r.status as FxOrderStatus,
    quoteId: (r.quote_id as string | null) ?? null,
    quoteIds: (r.quote_ids as string[] | null) ?? [],
    transferId: (r.transfer_id as string | null) ?? null,
    usdBought: (r.usd_bought as string | null) ?? null,
    createdAt: new Date(r.created_at as string | Date),
  };
}

/**
 * One order's record, written statement by statement (each commits at once, none spans a
 * venue call): what was asked at the venue is on disk before the venue is asked. The process
 * holding the order's lease is the only one that writes it; each write renews the lease, so a
 * lease outlives the venue call that follows it (`leaseMs` > one call's timeout).
 */
export class FxOrderStore {
  private readonly holder = randomUUID();

  constructor(
    private readonly em: EntityManager,
    private readonly clock: Clock,
    private readonly venue: string,
    private readonly leaseMs: number,
  ) {}

  private leaseUntil(): Date {
    return new Date(this.clock.now().getTime() + this.leaseMs);
  }

  /**
   * The order's row, created on its first placement, with this store holding its lease; or a
   * filled order's row (no lease needed to read a fill). Throws `FxOrderBusy` while another
   * process's lease runs.
   */
  async acquire(order: FxOrder): Promise<FxOrderRow> {
    const now = this.clock.now();
    const taken = await this.em.getConnection().execute<Row[]>(
      `insert into fx_venue_orders as o
         (client_order_id, venue, amount_ngn, status, lease_holder, lease_expires_at, created_at,
          updated_at)
       values (?, ?, ?, ${FIRST.value}, ?, ?, ?, ?)
       on conflict (client_order_id) do update
          set lease_holder = excluded.lease_holder, lease_expires_at = excluded.lease_expires_at,
              updated_at = excluded.updated_at
        where o.status <> 'FILLED' and (o.lease_expires_at is null or o.lease_expires_at <= ?)
       returning ${COLUMNS}`,
      [
        order.clientOrderId,
        this.venue,
        order.amountNgn.toFixed(2),
        this.holder,
        this.leaseUntil(),
        now,
        now,
        now,
      ],
    );
    const row = taken[0]
      ? rowOf(taken[0])
      : await this.read(order.clientOrderId).then((r) => {
          if (r?.status === 'FILLED') return r;
          throw new FxOrderBusy(
            `FX order ${order.clientOrderId} is being placed by another process`,
          );
        });
    if (!dec(row.amountNgn).eq(order.amountNgn)) {
      // A client order id names one conversion: the same id with another amount is a bug.
      throw new Error(
        `FX order ${order.clientOrderId} was placed for ${row.amountNgn} NGN, not ${order.amountNgn.toFixed(2)}`,
      );
    }
    return row;
  }

  async read(clientOrderId: string): Promise<FxOrderRow | undefined> {
    const [row] = await this.em
      .getConnection()
      .execute<Row[]>(`select ${COLUMNS} from fx_venue_orders where client_order_id = ?`, [
        clientOrderId,
      ]);
    return row ? rowOf(row) : undefined;
  }

  /** Renews the lease before a venue call; throws `FxOrderBusy` if another process took it. */
  renew(clientOrderId: string): Promise<void> {
    return this.write(clientOrderId, null, '', []);
  }

  /** A new quote for the order, recorded before it is executed. */
  recordQuote(clientOrderId: string, quoteId: string, expiresAt: Date): Promise<void> {
    return this.write(
      clientOrderId,
      'QUOTED',
      'quote_id = ?, quote_expires_at = ?, quote_ids = quote_ids || ?::text,',
      [quoteId, expiresAt, quoteId],
    );
  }

  /** The venue is about to be asked to execute the current quote. */
  markExecuting(clientOrderId: string): Promise<void> {
    return this.write(clientOrderId, 'EXECUTING', '', []);
  }

  /** The order's current quote expired unexecuted: the next attempt asks for a new one. */
  dropQuote(clientOrderId: string): Promise<void> {
    return this.write(clientOrderId, 'NEW', 'quote_id = null, quote_expires_at = null,', []);
  }

  recordTransfer(clientOrderId: string, transferId: string): Promise<void> {
    return this.write(clientOrderId, 'EXECUTING', 'transfer_id = ?,', [transferId]);
  }

  /** The transfer ended without converting: a later placement starts over with a new quote. */
  markCancelled(clientOrderId: string): Promise<void> {
    return this.write(
      clientOrderId,
      'CANCELLED',
      'quote_id = null, quote_expires_at = null, transfer_id = null,',
      [],
    );
  }

  recordFill(clientOrderId: string, fill: FxFill): Promise<void> {
    return this.write(clientOrderId, 'FILLED', 'transfer_id = ?, usd_bought = ?,', [
      fill.venueReference,
      fill.usdBought.toFixed(6),
    ]);
  }

  /** Lets the next placement start at once (a fill stays recorded). */
  async release(clientOrderId: string): Promise<void> {
    await this.em.getConnection().execute(
      `update fx_venue_orders set lease_holder = null, lease_expires_at = null
          where client_order_id = ? and lease_holder = ?`,
      [clientOrderId, this.holder],
    );
  }

  /**
   * Writes under the lease, moving the order to `to` (null: no move) as the lifecycle allows.
   * Nothing written: the lease passed to another process (FxOrderBusy), or the order's status
   * does not allow the move (IllegalTransitionError).
   */
  private async write(
    clientOrderId: string,
    to: FxOrderStatus | null,
    set: string,
    params: unknown[],
  ): Promise<void> {
    const move = to === null ? null : moveFxOrder(to);
    const rows = await this.em.getConnection().execute<Row[]>(
      `update fx_venue_orders
          set ${move ? `${move.set}, ` : ''}${set} lease_expires_at = ?, updated_at = ?
        where client_order_id = ? and lease_holder = ? and ${move ? move.allowed : 'true'}
        returning 1 as held`,
      [...params, this.leaseUntil(), this.clock.now(), clientOrderId, this.holder],
    );
    if (rows.length > 0) return;
    const [held] = await this.em
      .getConnection()
      .execute<Row[]>(
        'select status from fx_venue_orders where client_order_id = ? and lease_holder = ?',
        [clientOrderId, this.holder],
      );
    if (held && to !== null) {
      throw new IllegalTransitionError('FX order', held.status as FxOrderStatus, to);
    }
    throw new FxOrderBusy(`FX order ${clientOrderId}: the lease passed to another process`);
  }
}
