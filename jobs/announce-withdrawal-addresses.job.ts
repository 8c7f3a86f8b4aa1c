import type { JobDefinition } from './job';

/**
 * Writes `withdrawal_address.activated` for address book entries whose delay has passed
 * (once each: the claim marks them in the event's transaction). An entry is usable from its
 * `active_at` whether or not this has run; the job only announces it, so every few seconds is
 * plenty. Batches until nothing is due.
 */
export const announceWithdrawalAddressesJob: JobDefinition = {
  name: 'announce-withdrawal-addresses',
  everyMs: () => 5_000,
  run: async (deps) => {
    let announced = 0;
    for (;;) {
      const count = await deps.services.withdrawalAddresses.announceActivations(
        deps.orm.em.fork(),
        100,
      );
      announced += count;
      if (count < 100) break;
    }
    if (announced > 0) deps.log.info({ announced }, 'withdrawal addresses activated');
  },
};
