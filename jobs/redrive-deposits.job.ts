import { settleDeposit } from './settle-deposit.job';
import type { JobDefinition } from './job';

const BATCH = 1000;

/**
 * Crash repair: a deposit left in PENDING_FX past DEPOSIT_REDRIVE_SECONDS (its trigger lost
 * to a runner killed mid-job, or sent while no runner listened) is handed to settlement
 * again. The database says what is unfinished; Agenda jobs are only triggers.
 */
export const redriveDepositsJob: JobDefinition = {
  name: 'redrive-deposits',
  everyMs: (deps) => deps.services.config.DEPOSIT_REDRIVE_SECONDS * 1000,
  // Crash repair must itself survive a crash: a dead runner's lock frees within seconds.
  lockLifetimeMs: 10_000,
  run: async (deps) => {
    const seconds = deps.services.config.DEPOSIT_REDRIVE_SECONDS;
    const before = new Date(deps.services.clock.now().getTime() - seconds * 1000);
    const rows = await deps.orm.em
      .fork()
      .getConnection()
      .execute<Array<{ id: string }>>(
        `select id from deposits
          where status = 'PENDING_FX' and updated_at < ?
          order by updated_at limit ?`,
        [before, BATCH],
      );
    for (const row of rows) await settleDeposit(deps.enqueue, row.id);
    if (rows.length > 0) deps.log.info({ deposits: rows.length }, 'stalled deposits re-driven');
  },
};
