import { sandboxPayer } from '../src/sandbox';
import type { JobDefinition } from './job';

/**
 * Sandbox auto-simulation: makes the transfers scheduled for new onramps of merchants that
 * asked for them, through the same ingestion path as the bank's notifications. The bank
 * reference is derived from the onramp, so a rerun after a crash cannot make a second deposit.
 */
export const sandboxAutoDepositsJob: JobDefinition = {
  name: 'sandbox-auto-deposits',
  everyMs: () => 1000,
  enabled: (deps) => deps.services.config.ONRAMP_ENV === 'sandbox',
  run: async (deps) => {
    const due = await deps.services.sandbox.dueAutoDeposits(deps.orm.em.fork());
    for (const transfer of due) {
      try {
        await deps.services.ingestion.receive(deps.orm.em.fork(), {
          accountNumber: transfer.accountNumber,
          amountNgn: transfer.amountNgn,
          bankReference: `AUTO-${transfer.onrampId}`,
          // A payer as a real bank names one (so the deposit can be returned).
          ...sandboxPayer(`AUTO-${transfer.onrampId}`),
        });
      } catch (error) {
        deps.log.warn({ err: error, onrampId: transfer.onrampId }, 'auto deposit failed');
        continue;
      }
      await deps.services.sandbox.markAutoDepositDone(deps.orm.em.fork(), transfer.onrampId);
    }
  },
};
