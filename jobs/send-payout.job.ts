import type { Enqueue, JobDefinition } from './job';

export const SEND_PAYOUT = 'send-payout';

/**
 * Signs and broadcasts one payout as soon as it exists (asked for by the payout_events
 * listener). If its chain is down it waits; the process-payouts sweep tries again. Running it
 * twice, or on two runners at once, is harmless: the payout row lock and the hot wallet's
 * nonce row let exactly one signer through.
 */
export const sendPayoutJob: JobDefinition = {
  name: SEND_PAYOUT,
  concurrency: 10,
  // Node calls time out after 5 s; a runner killed mid-job frees the lock soon for another.
  lockLifetimeMs: 30_000,
  removeOnComplete: true,
  run: async (deps, data) => {
    const payoutId = (data as { payoutId?: unknown } | undefined)?.payoutId;
    if (typeof payoutId !== 'string') {
      deps.log.warn({ data }, 'send-payout without a payoutId; ignored');
      return;
    }
    const outcome = await deps.services.payouts.send(deps.orm.em.fork(), payoutId);
    if (outcome !== 'skipped') deps.log.info({ payoutId, outcome }, 'payout');
  },
};

export function sendPayout(enqueue: Enqueue, payoutId: string): Promise<void> {
  return enqueue(SEND_PAYOUT, { payoutId }, payoutId);
}
