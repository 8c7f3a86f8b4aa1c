import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { BankProviderRegistry } from '../adapters/bank/bank-providers';
import type { Clock } from '../clock';
import type { BankTransferIntake } from './bank-intake';

export interface SweepRound {
  provider: string;
  /** Transfers the provider listed in the window. */
  listed: number;
  /** Deposits (or unmatched transfers) recorded now: the notifications that never came. */
  found: number;
  /** Why the provider could not be asked, when it could not. */
  error?: string;
}

/**
 * Notifications get lost. Every `BANK_SWEEP_SECONDS` the runner asks each provider with an API
 * for the successful transfers into our accounts over the last `BANK_SWEEP_LOOKBACK_HOURS` and
 * records any that no notification brought, idempotent by the provider's reference (a transfer
 * already recorded changes nothing). One provider's failure does not stop the others'.
 */
export class BankSweep {
  constructor(
    private readonly clock: Clock,
    private readonly providers: BankProviderRegistry,
    private readonly intake: BankTransferIntake,
    private readonly lookbackMs: number,
    private readonly log?: Logger,
  ) {}

  /** Whether any configured provider has an API to sweep (the pool's have none). */
  get needed(): boolean {
    return this.providers.ordered.some((provider) => !provider.pooled);
  }

  async run(openEm: () => EntityManager): Promise<SweepRound[]> {
    const to = this.clock.now();
    const from = new Date(to.getTime() - this.lookbackMs);
    const rounds: SweepRound[] = [];
    for (const provider of this.providers.ordered.filter((p) => !p.pooled)) {
      const round: SweepRound = { provider: provider.name, listed: 0, found: 0 };
      try {
        const transfers = await provider.listTransfers({ from, to });
        round.listed = transfers.length;
        for (const transfer of transfers) {
          const outcome = await this.intake.receive(openEm(), provider, transfer, {
            fromProviderApi: true,
          });
          if ((outcome.kind === 'deposit' || outcome.kind === 'unmatched') && outcome.created) {
            round.found += 1;
            this.log?.warn(
              { provider: provider.name, bankReference: transfer.bankReference },
              'sweep found a transfer no notification brought',
            );
          }
        }
      } catch (error) {
        round.error = error instanceof Error ? error.message : String(error);
        this.log?.warn({ provider: provider.name, reason: round.error }, 'bank sweep failed');
      }
      rounds.push(round);
    }
    return rounds;
  }
}
