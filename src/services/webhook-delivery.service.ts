import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { executeInTransaction } from '../db/locks';
import { TEXT_ARRAY, textArray } from '../db/text-array';
import type { WebhookDeliveryStatus } from '../db/entities/webhook-delivery.entity';
import { nextAttemptAt } from '../domain/webhook-schedule';
import type { WebhookRequest, WebhookResponse } from '../adapters/webhook/webhook-sender';
import { webhookHeaders } from '../adapters/webhook/webhook-signer';
import type { OutboxEvent } from '../api/webhooks/envelope';
import { WebhookEndpointService } from './webhook-endpoint.service';

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
}

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
      `select d.id, d.merchant_id, d.attempt_count, d.first_attempt_at,
              e.id as event_id, e.kind, e.deposit_id, e.withdrawal_id, e.snapshot,
              e.created_at as event_created_at,
              w.url, w.secret, w.previous_secret, w.previous_secret_expires_at, w.enabled
         from webhook_deliveries d
         join events e on e.id = d.event_id
         left join webhook_endpoints w on w.merchant_id = d.merchant_id
        where d.id = any(${TEXT_ARRAY}) and d.lease_token = ?`,
      [textArray(ids), token],
    );
    return rows.map((r) => ({
      id: r.id as string,
      merchantId: r.merchant_id as string,
      attemptCount: Number(r.attempt_count),
      firstAttemptAt: timeOrNull(r.first_attempt_at),
      leaseToken: token,
      event: {
        id: r.event_id as string,
        kind: r.kind as string,
        depositId: (r.deposit_id as string | null) ?? null,
        withdrawalId: (r.withdrawal_id as string | null) ?? null,
        snapshot: r.snapshot as Record<string, unknown>,
        createdAt: time(r.event_created_at),
      },
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
    const secrets = WebhookEndpointService.signingSecrets(endpoint, at);
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
    const status: WebhookDeliveryStatus =
      outcome.kind === 'succeeded' ? 'SUCCEEDED' : outcome.kind === 'retry' ? 'PENDING' : 'FAILED';
    const now = this.clock.now();
    const number = claimed.attemptCount + 1;
    const error =
      outcome.kind === 'endpoint_gone' ? 'Endpoint answered 410 Gone; disabled' : response.error;
    const recorded = await em.transactional(async (tx) => {
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
    return recorded ? outcome : { kind: 'lease_lost' };
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
