import { performance } from 'node:perf_hooks';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SpanKind } from '@opentelemetry/api';
import { inStoredTrace } from '../lib/trace-context';
import type { AttemptOutcome } from './webhook-delivery.service';

/** Told of each attempt's outcome and duration (the job runner's metrics). */
export type WebhookAttemptObserver = (outcome: AttemptOutcome['kind'], seconds: number) => void;
import type { ClaimedDelivery, WebhookDeliveryService } from './webhook-delivery.service';

/**
 * The stored trace context of these deposits (tracing on): each attempt of a deposit's event
 * runs in a span of the deposit's trace. Filled by the composition root (deposits' read).
 */
export type DepositTraces = (
  em: EntityManager,
  depositIds: string[],
) => Promise<Map<string, string>>;

export interface DispatcherLimits {
  /** Attempts in flight in this runner, over all endpoints. */
  concurrency: number;
  /** Attempts in flight to one endpoint. */
  perEndpoint: number;
}

/**
 * Keeps this runner's webhook attempts flowing: `wake()` (on a NOTIFY of a new delivery, and
 * from the recurring sweep for retries) claims what is due and starts the attempts without
 * waiting for them. Slots are counted per endpoint, so a slow or hanging endpoint occupies at
 * most `perEndpoint` of them and other endpoints' deliveries (the same merchant's too) go on.
 *
 * One object's events (a deposit's, a withdrawal's) are attempted one after another, in outbox
 * order: a deposit created and settled within milliseconds must not reach the merchant as
 * `deposit.settled` then `deposit.created`. The order holds per endpoint: each endpoint gets the
 * object's events in order, and a slow endpoint does not hold up another. Only first attempts keep that order: a retry comes
 * when its backoff says, after later events of the object may have been delivered.
 */
export class WebhookDispatcher {
  private readonly inFlight = new Map<string, number>();
  private total = 0;
  private claiming: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly idle = new Set<() => void>();
  /** Per object, the end of the last attempt started for it: the next one waits for it. */
  private readonly lastOfObject = new Map<string, Promise<void>>();

  constructor(
    private readonly orm: MikroORM,
    private readonly deliveries: WebhookDeliveryService,
    private readonly limits: DispatcherLimits,
    private readonly log: Logger,
    /** Told the outcome and duration of every attempt (metrics). */
    private readonly observe?: WebhookAttemptObserver,
    /** Tracing on only: where a deposit's trace context is read. */
    private readonly traces?: DepositTraces,
  ) {}

  /** Claims due deliveries now; resolves when this round's claims are made (not sent). */
  wake(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.claiming) {
      this.again = true;
      return this.claiming;
    }
    this.claiming = this.claimRounds().finally(() => {
      this.claiming = null;
    });
    return this.claiming;
  }

  private async claimRounds(): Promise<void> {
    do {
      this.again = false;
      const free = this.limits.concurrency - this.total;
      if (free <= 0 || this.stopped) return;
      const skip = [...this.inFlight].filter(([, n]) => n >= this.limits.perEndpoint);
      let claimed: ClaimedDelivery[];
      try {
        claimed = await this.deliveries.claimDue(this.orm.em.fork(), {
          limit: free,
          perEndpoint: this.limits.perEndpoint,
          skipEndpoints: skip.map(([slot]) => slot),
        });
      } catch (error) {
        this.log.warn({ err: error }, 'could not claim webhook deliveries');
        return;
      }
      const traced = await this.traceParents(claimed);
      for (const delivery of inOutboxOrder(claimed)) {
        this.start(delivery, traced.get(delivery.event.depositId ?? ''));
      }
      // A full batch means more may be due right now.
      if (claimed.length === free) this.again = true;
    } while (this.again);
  }

  /** The trace context of each claimed deposit event (none without tracing). */
  private async traceParents(claimed: ClaimedDelivery[]): Promise<Map<string, string>> {
    const ids = claimed.flatMap((d) => (d.event.depositId ? [d.event.depositId] : []));
    if (!this.traces || ids.length === 0) return new Map();
    return this.traces(this.orm.em.fork(), [...new Set(ids)]).catch((error: unknown) => {
      this.log.warn({ err: error }, 'webhook traces not read; attempts go untraced');
      return new Map<string, string>();
    });
  }

  private start(delivery: ClaimedDelivery, traceParent?: string): void {
    const slot = slotOf(delivery);
    this.inFlight.set(slot, (this.inFlight.get(slot) ?? 0) + 1);
    this.total += 1;
    const object = objectOf(delivery);
    const previous = this.lastOfObject.get(object);
    let started = 0;
    const attempt = (previous ?? Promise.resolve()).then(() => {
      started = performance.now();
      return inStoredTrace(
        'webhook.deliver',
        traceParent,
        { 'onramp.webhook.delivery_id': delivery.id, 'onramp.event.kind': delivery.event.kind },
        async (span) => {
          const outcome = await this.deliveries.attempt(this.orm.em.fork(), delivery);
          span?.setAttribute('onramp.webhook.outcome', outcome.kind);
          return outcome;
        },
        SpanKind.CLIENT,
      );
    });
    const done = attempt.then(
      () => undefined,
      () => undefined,
    );
    this.lastOfObject.set(object, done);
    void done.then(() => {
      if (this.lastOfObject.get(object) === done) this.lastOfObject.delete(object);
    });
    attempt
      .then((outcome) => {
        this.observe?.(outcome.kind, (performance.now() - started) / 1000);
        if (outcome.kind === 'lease_lost') {
          this.log.warn({ deliveryId: delivery.id }, 'webhook delivery lease lost');
        }
      })
      .catch((error: unknown) => {
        // The lease expires and another round retries it; nothing is lost.
        this.log.error({ err: error, deliveryId: delivery.id }, 'webhook attempt not recorded');
      })
      .finally(() => {
        const left = (this.inFlight.get(slot) ?? 1) - 1;
        if (left === 0) this.inFlight.delete(slot);
        else this.inFlight.set(slot, left);
        this.total -= 1;
        if (this.total === 0) for (const resolve of this.idle) resolve();
        // A slot came free: whatever waited for it is due.
        if (!this.stopped) void this.wake();
      });
  }

  /** Stops claiming and waits for the attempts in flight to be recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.claiming;
    if (this.total === 0) return;
    await new Promise<void>((resolve) => this.idle.add(resolve));
  }
}

/** The slot a delivery counts in: its endpoint (the claim's own rule, `SLOT`). */
function slotOf(delivery: ClaimedDelivery): string {
  return delivery.endpointId ?? delivery.merchantId;
}

/** The object a delivery is about, per endpoint: its deposit or withdrawal, else the event. */
function objectOf(delivery: ClaimedDelivery): string {
  const { event } = delivery;
  return `${slotOf(delivery)} ${event.depositId ?? event.withdrawalId ?? event.id}`;
}

/** A claimed batch in outbox order (claims come in retry-time order, not event order). */
function inOutboxOrder(claimed: readonly ClaimedDelivery[]): ClaimedDelivery[] {
  return [...claimed].sort((a, b) => a.event.seq - b.event.seq);
}
