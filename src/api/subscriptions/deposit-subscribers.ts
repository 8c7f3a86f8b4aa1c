import type { DepositNode } from '../graphql/types/deposit.type';
import { SubscriberQueue } from './subscriber-queue';
import type { DomainError } from '../../domain/errors';

/** What one subscription watches. `merchantId` always comes from the caller's credentials. */
export interface DepositEventFilter {
  merchantId: string;
  onrampId?: string;
  depositId?: string;
}

interface Subscriber {
  filter: DepositEventFilter;
  queue: SubscriberQueue<DepositNode>;
}

/** A deposit's place, as far as a notice or an event says (undefined: unknown, may match). */
interface DepositPlace {
  onrampId: string | undefined;
  depositId: string | undefined;
}

function matches(filter: DepositEventFilter, place: DepositPlace): boolean {
  return (
    (!filter.onrampId || place.onrampId === undefined || filter.onrampId === place.onrampId) &&
    (!filter.depositId || place.depositId === undefined || filter.depositId === place.depositId)
  );
}

/**
 * This gateway's subscribers, by merchant: an event is offered only to its own merchant's
 * subscribers, so fan-out costs what that merchant watches, not what the gateway holds.
 */
export class DepositSubscribers {
  private readonly byMerchant = new Map<string, Set<Subscriber>>();
  private count = 0;

  constructor(private readonly queueLimit: number) {}

  get size(): number {
    return this.count;
  }

  add(
    filter: DepositEventFilter,
    onOverflow: (error: DomainError) => void,
  ): SubscriberQueue<DepositNode> {
    const subscriber = { filter } as Subscriber;
    subscriber.queue = new SubscriberQueue<DepositNode>({
      limit: this.queueLimit,
      onEnd: () => this.remove(subscriber),
      onOverflow,
    });
    let merchant = this.byMerchant.get(filter.merchantId);
    if (!merchant) {
      merchant = new Set();
      this.byMerchant.set(filter.merchantId, merchant);
    }
    merchant.add(subscriber);
    this.count += 1;
    return subscriber.queue;
  }

  merchantIds(): string[] {
    return [...this.byMerchant.keys()];
  }

  /** Whether any subscriber here could want this merchant's event. */
  wants(merchantId: string, place: DepositPlace): boolean {
    const merchant = this.byMerchant.get(merchantId);
    if (!merchant) return false;
    for (const subscriber of merchant) if (matches(subscriber.filter, place)) return true;
    return false;
  }

  /** Queues the deposit for every matching subscriber of its merchant; never waits. */
  publish(deposit: DepositNode): number {
    const merchant = this.byMerchant.get(deposit.merchantId);
    if (!merchant) return 0;
    const place = { onrampId: deposit.onrampId, depositId: deposit.depositId };
    let offered = 0;
    // A push that overflows removes its subscriber; deleting from a Set while iterating is safe.
    for (const subscriber of merchant) {
      if (matches(subscriber.filter, place)) {
        subscriber.queue.push(deposit);
        offered += 1;
      }
    }
    return offered;
  }

  endAll(): void {
    for (const merchant of [...this.byMerchant.values()]) {
      for (const subscriber of [...merchant]) subscriber.queue.end();
    }
  }

  private remove(subscriber: Subscriber): void {
    const merchant = this.byMerchant.get(subscriber.filter.merchantId);
    if (!merchant?.delete(subscriber)) return;
    this.count -= 1;
    if (merchant.size === 0) this.byMerchant.delete(subscriber.filter.merchantId);
  }
}
