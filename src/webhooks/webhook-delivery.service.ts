import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { executeInTransaction } from '../db/locks';
import { TEXT_ARRAY, textArray } from '../db/text-array';
import type { WebhookDeliveryStatus } from '../db/entities/webhook-delivery.entity';
import { nextAttemptAt } from '../domain/webhook-schedule';
import type { WebhookRequest, WebhookResponse } from '../adapters/webhook/webhook-sender';
import { webhookHeaders } from '../adapters/webhook/webhook-signer';
import type { OutboxEvent } from './webhook-envelope';
import { WebhookEndpointService } from './webhook-endpoint.service';
import { outboxEvents } from '../events';
import { Batcher, type Settled } from '../lib/batching';

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
}

interface EndpointRow {
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  enabled: boolean;
}

/** A delivery this runner holds a lease on, with what it needs to make the attempt. */
export interface ClaimedDelivery {
  id: string;
  merchantId: string;
  attemptCount: number;
  firstAttemptAt: Date | null;
  leaseToken: string;
  event: OutboxEvent;
  /** Null when the merchant has no endpoint any more. */
  endpoint: EndpointRow | null;
}

export type AttemptOutcome =
  | { kind: 'succeeded'; statusCode: number }
  | { kind: 'retry'; at: Date; statusCode: number | null; error: string | null }
  | { kind: 'failed'; statusCode: number | null; error: string | null }
  | { kind: 'endpoint_gone'; statusCode: 410 }
  | { kind: 'no_endpoint' }
  /** Another runner took the delivery over (this runner's lease expired): nothing recorded. */
  | { kind: 'lease_lost' };

export interface ClaimLimits {
  limit: number;
  perMerchant: number;
  /** Merchants this runner already has `perMerchant` attempts in flight for. */
  skipMerchants: string[];
}

export interface WebhookDeliveryOptions {
  /** How long a claim is held: longer than an attempt can take (timeout + recording). */
  leaseMs: number;
  random?: () => number;
  /** Opens a secret as stored (sealed with ENCRYPTION_KEY) for signing; throws on a wrong key. */
  openSecret: (merchantId: string, stored: string) => string;
}

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
  outcome: Exclude<AttemptOutcome, { kind: 'no_endpoint' } | { kind: 'lease_lost' }>;
  row: AttemptRow;
}

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
       set status = i.status, attempt_count = i.prev_count + 1,
           first_attempt_at = coalesce(d.first_attempt_at, i.attempted_at),
           next_attempt_at = i.next_attempt_at, last_status_code = i.status_code,
           last_error = i.error, lease_token = null, lease_until = null, updated_at = i.updated_at
      from input i
     where d.id = i.id and d.lease_token = i.lease_token and d.attempt_count = i.prev_count
    returning i.ord
  ), attempts as (
    insert into webhook_attempts
      (delivery_id, number, url, attempted_at, status_code, latency_ms, error)
    select i.id, i.prev_count + 1, i.url, i.attempted_at, i.status_code, i.latency_ms, i.error
      from input i join updated u on u.ord = i.ord
    returning delivery_id
  )
  select ord from updated`;

const time = (value: unknown): Date => new Date(value as string);
const timeOrNull = (value: unknown): Date | null => (value == null ? null : time(value));

/**
 * Delivering outbox events to merchants' endpoints. A due delivery is claimed under a lease
 * (`FOR UPDATE SKIP LOCKED`, so any number of job runners share the work), attempted over
 * HTTP outside any transaction, and its outcome recorded only under the same lease, in one
 * transaction with the attempt row: success, a retry planned by the schedule, or failure after
 * the last retry. A 410 answer disables the endpoint.
 */
export class WebhookDeliveryService {
  private readonly random: () => number;
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

  constructor(
    private readonly clock: Clock,
    private readonly sender: WebhookSender,
    private readonly render: (event: OutboxEvent) => string,
    private readonly options: WebhookDeliveryOptions,
  ) {
    this.random = options.random ?? Math.random;
  }

  /** Claims due deliveries, oldest first, at most `perMerchant` per merchant. */
  async claimDue(em: EntityManager, limits: ClaimLimits): Promise<ClaimedDelivery[]> {
    if (limits.limit <= 0) return [];
    const now = this.clock.now();
    const token = randomUUID();
    const leaseUntil = new Date(now.getTime() + this.options.leaseMs);
    const ids = await em.transactional(async (tx) => {
      const due = await executeInTransaction<{ id: string; merchant_id: string }>(
        tx,
        `select id, merchant_id from webhook_deliveries
          where status = 'PENDING' and next_attempt_at <= ?
            and (lease_until is null or lease_until <= ?)
            and not (merchant_id = any(${TEXT_ARRAY}))
          order by next_attempt_at
          limit ?
          for update skip locked`,
        [now, now, textArray(limits.skipMerchants), limits.limit * 4],
      );
      const perMerchant = new Map<string, number>();
      const picked: string[] = [];
      for (const row of due) {
        const count = perMerchant.get(row.merchant_id) ?? 0;
        if (count >= limits.perMerchant) continue;
        perMerchant.set(row.merchant_id, count + 1);
        picked.push(row.id);
        if (picked.length >= limits.limit) break;
      }
      if (picked.length > 0) {
        await executeInTransaction(
          tx,
          `update webhook_deliveries set lease_token = ?, lease_until = ?
            where id = any(${TEXT_ARRAY})`,
          [token, leaseUntil, textArray(picked)],
        );
      }
      return picked;
    });
    if (ids.length === 0) return [];
    return this.loadClaimed(em, ids, token);
  }

  private async loadClaimed(
    em: EntityManager,
    ids: string[],
    token: string,
  ): Promise<ClaimedDelivery[]> {
    const rows = await em.getConnection().execute<Record<string, unknown>[]>(
      `select d.id, d.merchant_id, d.attempt_count, d.first_attempt_at, d.event_id,
              w.url, w.secret, w.previous_secret, w.previous_secret_expires_at, w.enabled
         from webhook_deliveries d
         left join webhook_endpoints w on w.merchant_id = d.merchant_id
        where d.id = any(${TEXT_ARRAY}) and d.lease_token = ?`,
      [textArray(ids), token],
    );
    // The outbox belongs to the events module: its rows come from there, one read per batch.
    const events = await outboxEvents(
      em,
      rows.map((r) => r.event_id as string),
    );
    return rows.map((r) => ({
      id: r.id as string,
      merchantId: r.merchant_id as string,
      attemptCount: Number(r.attempt_count),
      firstAttemptAt: timeOrNull(r.first_attempt_at),
      leaseToken: token,
      event: events.get(r.event_id as string)!,
      endpoint:
        r.url == null
          ? null
          : {
              url: r.url as string,
              secret: r.secret as string,
              previousSecret: (r.previous_secret as string | null) ?? null,
              previousSecretExpiresAt: timeOrNull(r.previous_secret_expires_at),
              enabled: Boolean(r.enabled),
            },
    }));
  }

  /** Makes one attempt of a claimed delivery and records its outcome. */
  async attempt(em: EntityManager, claimed: ClaimedDelivery): Promise<AttemptOutcome> {
    const endpoint = claimed.endpoint;
    if (!endpoint || !endpoint.enabled) {
      const why = endpoint ? 'Webhook endpoint is disabled' : 'No webhook endpoint is set';
      const recorded = await this.finishUnattempted(em, claimed, why);
      return recorded ? { kind: 'no_endpoint' } : { kind: 'lease_lost' };
    }
    const at = this.clock.now();
    const body = this.render(claimed.event);
    const secrets = WebhookEndpointService.signingSecrets(endpoint, at).map((stored) =>
      this.options.openSecret(claimed.merchantId, stored),
    );
    const response = await this.sender.send({
      url: endpoint.url,
      headers: webhookHeaders(secrets, claimed.event.id, at, body),
      body,
    });
    return this.record(em, claimed, endpoint.url, at, response);
  }

  /** Claims and attempts everything due now, waiting for every attempt (tests, sweeps). */
  async deliverDue(em: EntityManager, limits: ClaimLimits): Promise<AttemptOutcome[]> {
    const claimed = await this.claimDue(em, limits);
    return Promise.all(claimed.map((c) => this.attempt(em.fork(), c)));
  }

  private outcomeOf(
    claimed: ClaimedDelivery,
    attemptedAt: Date,
    response: WebhookResponse,
  ): Exclude<AttemptOutcome, { kind: 'no_endpoint' } | { kind: 'lease_lost' }> {
    const code = response.statusCode;
    if (code !== null && code >= 200 && code < 300) return { kind: 'succeeded', statusCode: code };
    if (code === 410) return { kind: 'endpoint_gone', statusCode: 410 };
    const at = nextAttemptAt(
      claimed.firstAttemptAt ?? attemptedAt,
      claimed.attemptCount + 1,
      this.clock.now(),
      this.random,
    );
    return at
      ? { kind: 'retry', at, statusCode: code, error: response.error }
      : { kind: 'failed', statusCode: code, error: response.error };
  }

  private async record(
    em: EntityManager,
    claimed: ClaimedDelivery,
    url: string,
    attemptedAt: Date,
    response: WebhookResponse,
  ): Promise<AttemptOutcome> {
    const outcome = this.outcomeOf(claimed, attemptedAt, response);
    if (outcome.kind !== 'endpoint_gone') {
      const status: WebhookDeliveryStatus =
        outcome.kind === 'succeeded'
          ? 'SUCCEEDED'
          : outcome.kind === 'retry'
            ? 'PENDING'
            : 'FAILED';
      // The common case goes in a batch with the other attempts finishing about now.
      const now = this.clock.now();
      const row: AttemptRow = {
        id: claimed.id,
        lease_token: claimed.leaseToken,
        prev_count: claimed.attemptCount,
        status,
        attempted_at: attemptedAt.toISOString(),
        next_attempt_at: outcome.kind === 'retry' ? outcome.at.toISOString() : null,
        status_code: response.statusCode,
        error: response.error,
        updated_at: now.toISOString(),
        url,
        latency_ms: response.latencyMs,
      };
      const recorded = await this.recording.submit({
        em,
        claimed,
        url,
        attemptedAt,
        response,
        outcome,
        row,
      });
      return recorded ? outcome : { kind: 'lease_lost' };
    }
    return (await this.recordAlone(em, claimed, url, attemptedAt, response, outcome))
      ? outcome
      : { kind: 'lease_lost' };
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
    outcome: Exclude<AttemptOutcome, { kind: 'no_endpoint' } | { kind: 'lease_lost' }>,
  ): Promise<boolean> {
    const status: WebhookDeliveryStatus =
      outcome.kind === 'succeeded' ? 'SUCCEEDED' : outcome.kind === 'retry' ? 'PENDING' : 'FAILED';
    const now = this.clock.now();
    const number = claimed.attemptCount + 1;
    const error =
      outcome.kind === 'endpoint_gone' ? 'Endpoint answered 410 Gone; disabled' : response.error;
    return em.transactional(async (tx) => {
      const updated = await executeInTransaction(
        tx,
        `update webhook_deliveries
            set status = ?, attempt_count = ?, first_attempt_at = coalesce(first_attempt_at, ?),
                next_attempt_at = ?, last_status_code = ?, last_error = ?,
                lease_token = null, lease_until = null, updated_at = ?
          where id = ? and lease_token = ? and attempt_count = ?
          returning id`,
        [
          status,
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
        // Only the URL that answered 410: a merchant who has since set a new one keeps it.
        await executeInTransaction(
          tx,
          `update webhook_endpoints
              set enabled = false, disabled_reason = ?, updated_at = ?
            where merchant_id = ? and url = ? and enabled`,
          [`${url} answered 410 Gone`, now, claimed.merchantId, url],
        );
      }
      return true;
    });
  }

  /** No endpoint to send to: the delivery fails without an attempt (a replay can resend it). */
  private async finishUnattempted(
    em: EntityManager,
    claimed: ClaimedDelivery,
    why: string,
  ): Promise<boolean> {
    const rows = await em.getConnection().execute<{ id: string }[]>(
      `update webhook_deliveries
          set status = 'FAILED', next_attempt_at = null, last_error = ?,
              lease_token = null, lease_until = null, updated_at = ?
        where id = ? and lease_token = ?
        returning id`,
      [why, this.clock.now(), claimed.id, claimed.leaseToken],
    );
    return rows.length > 0;
  }
}
