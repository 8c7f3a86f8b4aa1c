import { BankSweep } from '../src/deposits';
import type { JobDefinition, JobDeps } from './job';

let sweep: BankSweep | undefined;

function sweepOf(deps: JobDeps): BankSweep {
  sweep ??= new BankSweep(
    deps.services.clock,
    deps.services.bankProviders,
    deps.services.bankIntake,
    deps.services.config.BANK_SWEEP_LOOKBACK_HOURS * 3_600_000,
    deps.log,
  );
  return sweep;
}

/**
 * Asks each bank provider with an API (Paystack, Monnify) for transfers into our accounts that
 * no notification brought, and records them (src/deposits/bank-sweep.ts).
 */
export const sweepBankTransfersJob: JobDefinition = {
  name: 'sweep-bank-transfers',
  everyMs: (deps) => deps.services.config.BANK_SWEEP_SECONDS * 1000,
  enabled: (deps) => sweepOf(deps).needed,
  run: async (deps) => {
    const rounds = await sweepOf(deps).run(() => deps.orm.em.fork());
    deps.log.info({ rounds }, 'bank sweep done');
  },
};
