import type { EntityManager } from '@mikro-orm/postgresql';
import { SandboxScenario } from './sandbox-scenario.entity';
import type { ReturnNotification, ReturnNotifier } from '../adapters/bank/bank-adapter';

export type { ReturnNotifier };
import type { BankTransfers, OutboundReturn, ReturnOutcome } from '../adapters/bank/bank-transfers';

/** Delivers a return's outcome to the service, as the bank's notification would. */

export interface SandboxBankOptions {
  /** How long a return stays "processing" before its notification is sent. */
  delayMs: number;
  notify: ReturnNotifier;
  /** Told when a notification could not be delivered (the sweep's next call recovers it). */
  onNotifyError?: (error: unknown, reference: string) => void;
}

interface KnownReturn {
  outcome: Exclude<ReturnOutcome, { outcome: 'accepted' }>;
  /** False until the notification went out: until then a repeated call answers `accepted`. */
  settled: boolean;
}

/**
 * The sandbox bank. With a notifier it behaves like a real NGN bank: `sendReturn` answers
 * `accepted`, then, after `delayMs`, notifies `transfer.return_completed` (or
 * `transfer.return_failed` when the merchant's `returnFailure` scenario is set). A repeated
 * call for a known reference answers `accepted` while pending and the final outcome once it
 * was notified: that is how the sweep recovers a lost notification. Without a notifier it
 * answers the final outcome at once (unit and integration tests of the sender).
 *
 * Idempotent by reference: the money moves once per reference (`transfers` counts it; the
 * tests read it). The references live in the runner's memory: the sandbox moves no real money,
 * and after a restart an unknown reference is a new transfer, which the sweep then completes.
 */
export class SandboxBankTransfers implements BankTransfers {
  readonly name = 'sandbox';
  private readonly known = new Map<string, KnownReturn>();
  readonly transfers: OutboundReturn[] = [];

  constructor(private readonly options?: SandboxBankOptions) {}

  async sendReturn(transfer: OutboundReturn, em: EntityManager): Promise<ReturnOutcome> {
    const known = this.known.get(transfer.reference);
    if (known) return known.settled ? known.outcome : { outcome: 'accepted' };
    const scenario = await em
      .fork()
      .findOne(
        SandboxScenario,
        { merchantId: transfer.merchantId },
        { fields: ['merchantId', 'returnFailure'] },
      );
    const outcome: KnownReturn['outcome'] = scenario?.returnFailure
      ? { outcome: 'refused', reason: 'sandbox scenario: the bank refused the return' }
      : { outcome: 'completed' };
    if (outcome.outcome === 'completed') this.transfers.push(transfer);
    const entry: KnownReturn = { outcome, settled: !this.options };
    this.known.set(transfer.reference, entry);
    if (!this.options) return outcome;
    this.notifyLater(transfer.reference, entry, em, this.options);
    return { outcome: 'accepted' };
  }

  private notifyLater(
    reference: string,
    entry: KnownReturn,
    em: EntityManager,
    options: SandboxBankOptions,
  ): void {
    const event: ReturnNotification =
      entry.outcome.outcome === 'completed'
        ? { type: 'transfer.return_completed', reference }
        : { type: 'transfer.return_failed', reference, reason: entry.outcome.reason };
    const timer = setTimeout(() => {
      // Final from now on, whether or not the notification arrives: a bank knows its outcome.
      entry.settled = true;
      options.notify(event, em.fork()).catch((error: unknown) => {
        options.onNotifyError?.(error, reference);
      });
    }, options.delayMs);
    // A pending notification does not keep the process alive; the sweep recovers it.
    timer.unref();
  }
}
