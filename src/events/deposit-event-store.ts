import { Pool, type PoolClient } from 'pg';
import type { Logger } from 'pino';

/** One deposit status event from the outbox (`events`). */
export interface DepositEventRow {
  seq: number;
  merchantId: string;
  /** The deposit row as the trigger stored it (see `depositViewFromSnapshot`). */
  snapshot: Record<string, unknown>;
}

export interface CatchUpRequest {
  /** The highest seq already handled; undefined the first time. */
  after: number | undefined;
  /** Seqs below `after` not seen yet. */
  gaps: number[];
  /** Whose events to read (the merchants with subscribers here). */
  merchantIds: string[];
  /** The first time: how far below the top to look for seqs still in flight. */
  lookback: number;
  /** At most this many events per read. */
  limit: number;
}

export interface CatchUpRead {
  /** Events after `after`, or in `gaps`, of the given merchants, lowest seq first. */
  events: DepositEventRow[];
  /** Every seq after `after` up to here, and every gap up to here, is handled but `missing`. */
  top: number;
  /** Of those, the ones not visible yet: still uncommitted, or rolled back. */
  missing: number[];
  /** More events may follow `top`: read again from there. */
  truncated: boolean;
}

interface RawEventRow {
  seq: string;
  merchant_id: string;
  snapshot: Record<string, unknown>;
}

const SELECT_EVENTS = 'select seq::text as seq, merchant_id, snapshot from events';

/**
 * Reads the outbox for the event hub over its own small pool, so live delivery does not queue
 * behind API requests for the gateway's main pool. Statements are time-boxed: the hub runs one
 * at a time and must not stall on a dead connection.
 */
export class DepositEventStore {
  private readonly pool: Pool;

  constructor(options: { databaseUrl: string; applicationName: string; log: Logger }) {
    this.pool = new Pool({
      connectionString: options.databaseUrl,
      application_name: options.applicationName,
      max: 2,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: 5_000,
      statement_timeout: 10_000,
      query_timeout: 12_000,
    });
    // An idle connection that dies (database restart, terminated backend) must not crash us.
    this.pool.on('error', (error) =>
      options.log.warn({ err: error }, 'event reader connection error'),
    );
  }

  /** The deposit events with these seqs (withdrawal events have no deposit and are skipped). */
  async bySeq(seqs: number[]): Promise<DepositEventRow[]> {
    if (seqs.length === 0) return [];
    const { rows } = await this.pool.query<RawEventRow>(
      `${SELECT_EVENTS} where seq = any($1::bigint[]) and deposit_id is not null order by seq`,
      [seqs],
    );
    return rows.map(toRow);
  }

  /**
   * Everything a listener missed, read in one snapshot (repeatable read), so the events, the
   * top and the missing seqs agree. `after` undefined: start `lookback` seqs below the current
   * top (only to find seqs still in flight; there are no merchants to read events for then).
   */
  async catchUp(request: CatchUpRequest): Promise<CatchUpRead> {
    const client = await this.pool.connect();
    try {
      await client.query('begin isolation level repeatable read read only');
      const read = await this.readCatchUp(client, request);
      await client.query('commit');
      client.release();
      return read;
    } catch (error) {
      // Discard the connection: it may be broken, or still inside the transaction.
      client.release(error instanceof Error ? error : true);
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private async readCatchUp(client: PoolClient, request: CatchUpRequest): Promise<CatchUpRead> {
    const [{ top: visibleTop }] = (
      await client.query<{ top: string }>('select coalesce(max(seq), 0)::text as top from events')
    ).rows;
    let top = Number(visibleTop);
    const after = request.after ?? Math.max(top - request.lookback, 0);

    let events: DepositEventRow[] = [];
    if (request.merchantIds.length > 0) {
      const { rows } = await client.query<RawEventRow>(
        `${SELECT_EVENTS}
          where (seq > $1 or seq = any($2::bigint[]))
            and deposit_id is not null and merchant_id = any($3::text[])
          order by seq limit $4`,
        [after, request.gaps, request.merchantIds, request.limit],
      );
      events = rows.map(toRow);
    }
    const truncated = events.length === request.limit;
    // Cut off at the last event read: whatever lies above it is for the next read.
    if (truncated) top = events[events.length - 1].seq;

    const { rows: missing } = await client.query<{ seq: string }>(
      `select candidate::text as seq
         from (select generate_series($1::bigint + 1, $2::bigint) as candidate
               union all
               select gap from unnest($3::bigint[]) gap where gap <= $2) candidates
        where not exists (select 1 from events e where e.seq = candidates.candidate)`,
      [after, top, request.gaps],
    );
    return { events, top, missing: missing.map((row) => Number(row.seq)), truncated };
  }
}

function toRow(row: RawEventRow): DepositEventRow {
  return { seq: Number(row.seq), merchantId: row.merchant_id, snapshot: row.snapshot };
}
