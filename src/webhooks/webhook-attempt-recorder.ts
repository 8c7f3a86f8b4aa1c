import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { executeInTransaction } from '../db/locks';
import type { WebhookDeliveryStatus } from '../domain/webhook-delivery-status';
import type { WebhookResponse } from '../adapters/webhook/webhook-sender';
import { Batcher, type Settled } from '../lib/batching';
import type { AttemptOutcome, ClaimedDelivery } from './webhook-delivery-types';
import { moveWebhookDelivery } from './webhook-delivery-transitions';

type RecordedOutcome = Exclude<AttemptOutcome, { kind: 'no_endpoint' } | { kind: 'lease_lost' }>;

/** Outcomes written by one statement at most (a longer queue goes in several). */
const RECORD_BATCH = 200;
/** Batch statements in flight at once (each holds a pooled connection meanwhile). */
const RECORD_FLUSHES = 2;

/** One attempt's outcome, as the batched statement records it. */
interface AttemptRow {
  id: string;
  lease_token: string;
  prev_count: number;
  status: WebhookDeliveryStatus;
  attempted_at: string;
  next_attempt_at: string | null;
  status_code: number | null;
  error: string | null;
  updated_at: string;
  url: string;
  latency_ms: number;
}

interface QueuedRecord {
  em: EntityManager;
  claimed: ClaimedDelivery;
  url: string;
  attemptedAt: Date;
  response: WebhookResponse;
  outcome: RecordedOutcome;
  row: AttemptRow;
}

/** Each row of a batch to the status its outcome gives, as the lifecycle allows. */
const RECORDED = moveWebhookDelivery({ column: 'i.status' }, 'd.status');
/** A delivery with no endpoint to send to fails without an attempt. */
const UNATTEMPTED = moveWebhookDelivery('FAILED');

/** The status an attempt's outcome leaves its delivery in. */
const statusAfter = (outcome: RecordedOutcome): WebhookDeliveryStatus =>
  outcome.kind === 'succeeded' ? 'SUCCEEDED' : outcome.kind === 'retry' ? 'PENDING' : 'FAILED';

/**
 * Records many attempts in one statement: each delivery is updated only under the lease and
 * attempt count it was attempted with, and its attempt row is written only if it was (the
 * same rule, and the same rows, as one transaction per attempt). `ord` says which were.
 */
const RECORD_ATTEMPTS = `
  with input as (
    select * from jsonb_to_recordset(?::jsonb) as i(
      ord int, id text, lease_token text, prev_count int, status text,
      attempted_at timestamptz, next_attempt_at timestamptz, status_code int, error text,
      updated_at timestamptz, url text, latency_ms int)
  ), updated as (
    update webhook_deliveries d
       set ${RECORDED.set}, attempt_count = i.prev_count + 1,
           first_attempt_at = coalesce(d.first_attempt_at, i.attempted_at),
           next_attempt_at = i.next_attempt_at, last_status_code = i.status_code,
           last_error = i.error, lease_token = null, lease_until = null, updated_at = i.updated_at
      from input i
     where d.id = i.id and d.lease_token = i.lease_token and d.attempt_count = i.prev_count
       and ${RECORDED.allowed}
    returning i.ord
  ), attempts as (
    insert into webhook_attempts
      (delivery_id, number, url, attempted_at, status_code, latency_ms, error)
    select i.id, i.prev_count + 1, i.url, i.attempted_at, i.status_code, i.latency_ms, i.error
      from input i join updated u on u.ord = i.ord
    returning delivery_id
  )
  select ord from updated`;

/**
 * Records attempts' outcomes, each only under the lease and attempt count it was made with:
 * success, a retry planned by the schedule, or failure after the last retry. A 410 answer
 * disables that endpoint (only it; the merchant's others go on).
 */
export class WebhookAttemptRecorder {
  /**
   * Outcomes are recorded on the next turn of the event loop, so the attempts that end
   * together (a fast receiver answers many at once) share one statement and one commit
   * instead of a transaction each. At most RECORD_FLUSHES statements run at once; what
   * queues meanwhile goes in the next.
   */
  private readonly recording = new Batcher<QueuedRecord, boolean>({
    maxBatch: RECORD_BATCH,
    maxInFlight: RECORD_FLUSHES,
    gatherOneTurn: true,
    run: (batch) => this.recordBatch(batch),
  });

  constructor(private readonly clock: Clock) {}

  /** Records one outcome; false when the lease was lost (nothing recorded). */
  async record(
    em: EntityManager,
    claimed: ClaimedDelivery,
    url: string,
    attemptedAt: Date,
    response: WebhookResponse,
    outcome: RecordedOutcome,
  ): Promise<boolean> {
    if (outcome.kind === 'endpoint_gone') {
      return this.recordAlone(em, claimed, url, attemptedAt, response, outcome);
    }
    const status = statusAfter(outcome);
    // The common case goes in a batch with the other attempts finishing about now.
    const row: AttemptRow = {
      id: claimed.id,
      lease_token: claimed.leaseToken,
      prev_count: claimed.attemptCount,
      status,
      attempted_at: attemptedAt.toISOString(),
      next_attempt_at: outcome.kind === 'retry' ? outcome.at.toISOString() : null,
      status_code: response.statusCode,
      error: response.error,
      updated_at: this.clock.now().toISOString(),
      url,
      latency_ms: response.latencyMs,
    };
    return this.recording.submit({ em, claimed, url, attemptedAt, response, outcome, row });
  }

  /** Writes a batch of outcomes in one statement; says of each whether it was recorded. */
  private async recordBatch(batch: QueuedRecord[]): Promise<Array<Settled<boolean>>> {
    try {
      const rows = await batch[0].em
        .getConnection()
        .execute<{ ord: number }[]>(RECORD_ATTEMPTS, [
          JSON.stringify(batch.map((q, ord) => ({ ord, ...q.row }))),
        ]);
      const recorded = new Set(rows.map((r) => Number(r.ord)));
      return batch.map((_, ord) => ({ value: recorded.has(ord) }));
    } catch {
      // Whatever failed, each on its own, as it was: one bad outcome does not fail the others,
      // and a database that is down fails each of them (their leases expire; retried later).
      // The batch's slot is free meanwhile: each settles when its own transaction does.
      return batch.map((q) => ({
        value: this.recordAlone(q.em, q.claimed, q.url, q.attemptedAt, q.response, q.outcome),
      }));
    }
  }

  /** One attempt's outcome in its own transaction (a 410 also disables the endpoint). */
  private async recordAlone(
    em: EntityManager,
    claimed: ClaimedDelivery,
    url: string,
    attemptedAt: Date,
    response: WebhookResponse,
    outcome: RecordedOutcome,
  ): Promise<boolean> {
    const move = moveWebhookDelivery(statusAfter(outcome));
    const now = this.clock.now();
    const number = claimed.attemptCount + 1;
    const error =
      outcome.kind === 'endpoint_gone' ? 'Endpoint answered 410 Gone; disabled' : response.error;
    return em.transactional(async (tx) => {
      const updated = await executeInTransaction(
        tx,
        `update webhook_deliveries
            set ${move.set}, attempt_count = ?, first_attempt_at = coalesce(first_attempt_at, ?),
                next_attempt_at = ?, last_status_code = ?, last_error = ?,
                lease_token = null, lease_until = null, updated_at = ?
          where id = ? and lease_token = ? and attempt_count = ? and ${move.allowed}
          returning id`,
        [
          number,
          attemptedAt,
          outcome.kind === 'retry' ? outcome.at : null,
          response.statusCode,
          error,
          now,
          claimed.id,
          claimed.leaseToken,
          claimed.attemptCount,
        ],
      );
      if (updated.length === 0) return false;
      await executeInTransaction(
        tx,
        `insert into webhook_attempts
           (delivery_id, number, url, attempted_at, status_code, latency_ms, error)
         values (?, ?, ?, ?, ?, ?, ?)`,
        [claimed.id, number, url, attemptedAt, response.statusCode, response.latencyMs, error],
      );
      if (outcome.kind === 'endpoint_gone') {
        // Only this endpoint, and only if it still has the URL that answered 410: a merchant
        // who has since set a new one keeps it.
        await executeInTransaction(
          tx,
          `update webhook_endpoints
              set enabled = false, disabled_reason = ?, updated_at = ?
            where id = ? and url = ? and enabled`,
          [`${url} answered 410 Gone`, now, claimed.endpointId, url],
        );
      }
      return true;
    });
  }

  /** No endpoint to send to: the delivery fails without an attempt (a replay can resend it). */
  async finishUnattempted(
    em: EntityManager,
    claimed: ClaimedDelivery,
    why: string,
  ): Promise<boolean> {
    const rows = await em.getConnection().execute<{ id: string }[]>(
      `update webhook_deliveries
          set ${UNATTEMPTED.set}, next_attempt_at = null, last_error = ?,
              lease_token = null, lease_until = null, updated_at = ?
        where id = ? and lease_token = ? and ${UNATTEMPTED.allowed}
        returning id`,
      [why, this.clock.now(), claimed.id, claimed.leaseToken],
    );
    return rows.length > 0;
  }
}
