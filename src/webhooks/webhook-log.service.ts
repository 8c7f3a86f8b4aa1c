import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { afterCursor, NEWEST_FIRST } from '../db/keyset';
import { executeInTransaction } from '../db/locks';
import { TEXT_ARRAY, textArray } from '../db/text-array';
import { WebhookDelivery } from './webhook-delivery.entity';
import { DomainError, ErrorCode, invalidParameter } from '../domain/errors';
import type { Cursor } from '../domain/pagination';
import { noEndpoint, OLDEST_FIRST, unknownEndpoint } from './webhook-endpoint-rows';
import { eventKinds, eventOwner, WEBHOOK_DELIVERIES, writeTestPingEvent } from '../events';
import type { WebhookSendBudget } from './webhook-send-budget';
import { moveWebhookDelivery } from './webhook-delivery-transitions';

export interface WebhookAttemptView {
  number: number;
  url: string;
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

export interface WebhookDeliveryView {
  id: string;
  /** The endpoint it was owed to (null only for deliveries older than several endpoints). */
  endpointId: string | null;
  eventId: string;
  eventKind: string;
  replay: boolean;
  status: WebhookDelivery['status'];
  attemptCount: number;
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
  attempts: WebhookAttemptView[];
}

/** A replay is a new delivery: it starts as the lifecycle says (PENDING). */
const REPLAYED = moveWebhookDelivery('PENDING', null);

const noEvent = (eventId: string) => new DomainError(ErrorCode.NotFound, `No event ${eventId}`);

/** The delivery log merchants read, and replays (by a merchant, or by the operator). */
export class WebhookLogService {
  constructor(
    private readonly clock: Clock,
    /** Merchants' test pings and replays (not the operator's); none: unlimited. */
    private readonly budget?: WebhookSendBudget,
  ) {}

  async listAfter(
    em: EntityManager,
    merchantId: string,
    eventId: string | null,
    after: Cursor | null,
    limit: number,
    endpointId: string | null = null,
  ): Promise<{ deliveries: WebhookDeliveryView[]; total: number; hasMore: boolean }> {
    const base: FilterQuery<WebhookDelivery> = { merchantId };
    if (eventId) base.eventId = eventId;
    if (endpointId) base.endpointId = endpointId;
    const [rows, total] = await Promise.all([
      em.find(WebhookDelivery, afterCursor(base, after), {
        orderBy: NEWEST_FIRST,
        limit: limit + 1,
      }),
      em.count(WebhookDelivery, base),
    ]);
    const page = rows.slice(0, limit);
    return { deliveries: await this.views(em, page), total, hasMore: rows.length > limit };
  }

  /** One endpoint's deliveries, newest first, by page (REST lists). */
  async listPage(
    em: EntityManager,
    merchantId: string,
    endpointId: string,
    offset: number,
    limit: number,
  ): Promise<{ deliveries: WebhookDeliveryView[]; total: number }> {
    const where = { merchantId, endpointId };
    const [rows, total] = await Promise.all([
      em.find(WebhookDelivery, where, { orderBy: NEWEST_FIRST, offset, limit }),
      em.count(WebhookDelivery, where),
    ]);
    return { deliveries: await this.views(em, rows), total };
  }

  async get(em: EntityManager, deliveryId: string): Promise<WebhookDeliveryView> {
    const delivery = await em.findOne(WebhookDelivery, { id: deliveryId }, { refresh: true });
    if (!delivery) throw new DomainError(ErrorCode.NotFound, `No delivery ${deliveryId}`);
    return (await this.views(em, [delivery]))[0];
  }

  /**
   * Sends an event again as a new delivery (its first attempt at once, then the usual
   * schedule), to the endpoint named or else the merchant's first. `merchantId` null is the
   * operator: any merchant's event.
   */
  async replay(
    em: EntityManager,
    merchantId: string | null,
    eventId: string,
    endpointId: string | null = null,
  ): Promise<WebhookDeliveryView> {
    if (merchantId !== null) await this.budget?.spend(em, merchantId);
    const id = await em.transactional(async (tx) => {
      const owner = await eventOwner(tx, eventId, merchantId);
      if (owner === null) throw noEvent(eventId);
      const endpoint = await this.enabledEndpoint(tx, owner, endpointId, 'eventId');
      return this.insertDelivery(tx, eventId, owner, endpoint, true);
    });
    return this.get(em, id);
  }

  /** Sends a signed `test.ping` event to this endpoint only; answers its delivery. */
  async sendTest(
    em: EntityManager,
    merchantId: string,
    endpointId: string,
  ): Promise<WebhookDeliveryView> {
    await this.budget?.spend(em, merchantId);
    const id = await em.transactional(async (tx) => {
      const endpoint = await this.enabledEndpoint(tx, merchantId, endpointId, 'id');
      const eventId = await writeTestPingEvent(tx, merchantId, endpoint, this.clock.now());
      return this.insertDelivery(tx, eventId, merchantId, endpoint, false);
    });
    return this.get(em, id);
  }

  /** The endpoint named (or the merchant's first), which must be enabled to be sent to. */
  private async enabledEndpoint(
    tx: EntityManager,
    merchantId: string,
    endpointId: string | null,
    parameter: string,
  ): Promise<string> {
    const [endpoint] = await executeInTransaction<{ id: string; enabled: boolean }>(
      tx,
      `select id, enabled from webhook_endpoints
        where merchant_id = ? and (?::text is null or id = ?) ${OLDEST_FIRST} limit 1`,
      [merchantId, endpointId, endpointId],
    );
    if (!endpoint) throw endpointId === null ? noEndpoint() : unknownEndpoint(endpointId);
    if (!endpoint.enabled) {
      throw invalidParameter(
        parameter,
        'the webhook endpoint is disabled (by you, or it answered 410); enable it first',
      );
    }
    return endpoint.id;
  }

  private async insertDelivery(
    tx: EntityManager,
    eventId: string,
    merchantId: string,
    endpointId: string,
    replay: boolean,
  ): Promise<string> {
    const now = this.clock.now();
    const inserted = await executeInTransaction<{ id: string }>(
      tx,
      `insert into webhook_deliveries
         (id, event_id, merchant_id, endpoint_id, replay, status, next_attempt_at, created_at,
          updated_at)
       values ('whd_' || replace(gen_random_uuid()::text, '-', ''), ?, ?, ?, ?, ${REPLAYED.value},
               ?, ?, ?)
       returning id`,
      [eventId, merchantId, endpointId, replay, now, now, now],
    );
    await executeInTransaction(tx, 'select pg_notify(?, ?)', [WEBHOOK_DELIVERIES.name, merchantId]);
    return inserted[0].id;
  }

  private async views(
    em: EntityManager,
    deliveries: WebhookDelivery[],
  ): Promise<WebhookDeliveryView[]> {
    if (deliveries.length === 0) return [];
    const ids = deliveries.map((d) => d.id);
    const [kindOf, attempts] = await Promise.all([
      eventKinds(
        em,
        deliveries.map((d) => d.eventId),
      ),
      em.getConnection().execute<Record<string, unknown>[]>(
        `select delivery_id, number, url, attempted_at, status_code, latency_ms, error
           from webhook_attempts where delivery_id = any(${TEXT_ARRAY})
          order by delivery_id, number`,
        [textArray(ids)],
      ),
    ]);
    const attemptsOf = new Map<string, WebhookAttemptView[]>();
    for (const a of attempts) {
      const list = attemptsOf.get(a.delivery_id as string) ?? [];
      list.push({
        number: Number(a.number),
        url: a.url as string,
        attemptedAt: new Date(a.attempted_at as string),
        statusCode: a.status_code == null ? null : Number(a.status_code),
        latencyMs: Number(a.latency_ms),
        error: (a.error as string | null) ?? null,
      });
      attemptsOf.set(a.delivery_id as string, list);
    }
    return deliveries.map((d) => ({
      id: d.id,
      endpointId: d.endpointId,
      eventId: d.eventId,
      eventKind: kindOf.get(d.eventId) ?? 'unknown',
      replay: d.replay,
      status: d.status,
      attemptCount: d.attemptCount,
      nextAttemptAt: d.nextAttemptAt,
      lastStatusCode: d.lastStatusCode,
      lastError: d.lastError,
      createdAt: d.createdAt,
      updatedAt: d.updatedAt,
      attempts: attemptsOf.get(d.id) ?? [],
    }));
  }
}
