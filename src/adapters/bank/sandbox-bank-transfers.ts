import type { EntityManager } from '@mikro-orm/postgresql';
import { SandboxScenario } from '../../db/entities/sandbox-scenario.entity';
import type { BankTransfers, OutboundReturn, ReturnOutcome } from './bank-transfers';

/**
 * The sandbox bank: completes every return at once, or refuses it when the merchant's
 * `returnFailure` scenario is set. Idempotent by reference like a real bank: a reference seen
 * before answers its first outcome and moves no money again (`transfers` counts the money
 * moved, which the tests read). The references live in the runner's memory: the sandbox
 * moves no real money, and a restart between a call and its outcome is the only way to see
 * a second sandbox transfer.
 */
export class SandboxBankTransfers implements BankTransfers {
  readonly name = 'sandbox';
  private readonly seen = new Map<string, ReturnOutcome>();
  readonly transfers: OutboundReturn[] = [];

  async sendReturn(transfer: OutboundReturn, em: EntityManager): Promise<ReturnOutcome> {
    const known = this.seen.get(transfer.reference);
    if (known) return known;
    const scenario = await em
      .fork()
      .findOne(
        SandboxScenario,
        { merchantId: transfer.merchantId },
        { fields: ['merchantId', 'returnFailure'] },
      );
    const outcome: ReturnOutcome = scenario?.returnFailure
      ? { outcome: 'refused', reason: 'sandbox scenario: the bank refused the return' }
      : { outcome: 'completed' };
    if (outcome.outcome === 'completed') this.transfers.push(transfer);
    this.seen.set(transfer.reference, outcome);
    return outcome;
  }
}
