import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { executeInTransaction } from '../db/locks';
import { TEXT_ARRAY, textArray } from '../db/text-array';
import { nextAttemptAt } from '../domain/webhook-schedule';
import type { WebhookRequest, WebhookResponse } from '../adapters/webhook/webhook-sender';
import { webhookHeaders } from '../adapters/webhook/webhook-signer';
import type { OutboxEvent } from '../events';
import { WebhookEndpointService } from './webhook-endpoint.service';
import { outboxEvents } from '../events';
import { WebhookAttemptRecorder } from './webhook-attempt-recorder';
import type { AttemptOutcome, ClaimedDelivery } from './webhook-delivery-types';

export type { AttemptOutcome, ClaimedDelivery };

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
}

export interface ClaimLimits {
  limit: number;
  perEndpoint: number;
  /** Endpoints this runner already has `perEndpoint` attempts in flight for. */
  skipEndpoints: string[];
}

export interface WebhookDeliveryOptions {
  /** How long a claim is held: longer than an attempt can take (timeout + recording). */
  leaseMs: number;
  random?: () => number;
  /** Opens a secret as stored (sealed with ENCRYPTION_KEY) for signing; throws on a wrong key. */
  openSecret: (merchantId: string, stored: string) => string;
}

/**
 * What a delivery's slot is counted by: its endpoint (a delivery older than several endpoints
 * by its merchant, as before).
 */
const SLOT = 'coalesce(endpoint_id, merchant_id)';

const time = (value: unknown): Date => new Date(value as string);
const timeOrNull = (value: unknown): Date | null => (value == null ? null : time(value));

/**
 * Delivering outbox events to merchants' endpoints. A due delivery is claimed under a lease
 * (`FOR UPDATE SKIP LOCKED`, so any number of job runners share the work), attempted over
 * HTTP outside any transaction, and its outcome recorded only under the same lease, in one
 * transaction with the attempt row: success, a retry planned by the schedule, or failure after
 * the last retry. A 410 answer disables that endpoint. Each delivery is owed to one endpoint:
 * an event several endpoints subscribed to has one delivery each, with its own retries.
 */
export class WebhookDeliveryService {
  private readonly random: () => number;
  private readonly recorder: WebhookAttemptRecorder;

  constructor(
    private readonly clock: Clock,
    private readonly sender: WebhookSender,
    private readonly render: (event: OutboxEvent) => string,
    private readonly options: WebhookDeliveryOptions,
  ) {
    this.random = options.random ?? Math.random;
    this.recorder = new WebhookAttemptRecorder(clock);
  }

  /** Claims due deliveries, oldest first, at most `perEndpoint` per endpoint. */
  async claimDue(em: EntityManager, limits: ClaimLimits): Promise<ClaimedDelivery[]> {
    if (limits.limit <= 0) return [];
    const now = this.clock.now();
    const token = randomUUID();
    const leaseUntil = new Date(now.getTime() + this.options.leaseMs);
    const ids = await em.transactional(async (tx) => {
      const due = await executeInTransaction<{ id: string; slot: string }>(
        tx,
        `select id, ${SLOT} as slot from webhook_deliveries
          where status = 'PENDING' and next_attempt_at <= ?
            and (lease_until is null or lease_until <= ?)
            and not (${SLOT} = any(${TEXT_ARRAY}))
          order by next_attempt_at
          limit ?
          for update skip locked`,
        [now, now, textArray(limits.skipEndpoints), limits.limit * 4],
      );
      const perEndpoint = new Map<string, number>();
      const picked: string[] = [];
      for (const row of due) {
        const count = perEndpoint.get(row.slot) ?? 0;
        if (count >= limits.perEndpoint) continue;
        perEndpoint.set(row.slot, count + 1);
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
      `select d.id, d.merchant_id, d.endpoint_id, d.attempt_count, d.first_attempt_at,
              d.event_id, w.url, w.secret, w.previous_secret, w.previous_secret_expires_at,
              w.enabled
         from webhook_deliveries d
         left join webhook_endpoints w on w.id = d.endpoint_id
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
      endpointId: (r.endpoint_id as string | null) ?? null,
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
      const recorded = await this.recorder.finishUnattempted(em, claimed, why);
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
    const recorded = await this.recorder.record(em, claimed, url, attemptedAt, response, outcome);
    return recorded ? outcome : { kind: 'lease_lost' };
  }
}
