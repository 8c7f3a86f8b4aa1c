import type { Enqueue, JobDefinition } from './job';

export const SETTLE_DEPOSIT = 'settle-deposit';

/**
 * Settles one deposit (MERCHANT_BALANCE: FX, ledger and SETTLED in one transaction). Asked
 * for by the deposit-events listener as soon as a deposit enters PENDING_FX, and by the
 * redrive sweep for any the listener missed. Running it twice is harmless.
 */
export const settleDepositJob: JobDefinition = {
  name: SETTLE_DEPOSIT,
  concurrency: 20,
  // Settlement takes milliseconds; a runner killed mid-job frees the lock soon for another.
  lockLifetimeMs: 10_000,
  removeOnComplete: true,
  run: async (deps, data) => {
    const depositId = (data as { depositId?: unknown } | undefined)?.depositId;
    if (typeof depositId !== 'string') {
      deps.log.warn({ data }, 'settle-deposit without a depositId; ignored');
      return;
    }
    const outcome = await deps.services.settlement.settle(deps.orm.em.fork(), depositId);
    if (outcome !== 'skipped') deps.log.info({ depositId, outcome }, 'deposit settlement');
  },
};

/** Queues settlement of one deposit (one pending job per deposit). */
export function settleDeposit(enqueue: Enqueue, depositId: string): Promise<void> {
  return enqueue(SETTLE_DEPOSIT, { depositId }, depositId);
}
