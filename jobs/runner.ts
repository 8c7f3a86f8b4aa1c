import 'reflect-metadata';
import { loadConfigOrExit } from '../src/config';
import { systemClock } from '../src/clock';
import { createLogger } from '../src/logger';
import { openOrm } from '../src/db/orm';
import { requireDatabaseUrl } from '../src/db/database-url';
import { createServices } from '../src/services';
import { backendName, createAgenda } from './agenda';
import { jobs } from './index';
import { generateRatesJob } from './generate-rates.job';

/** Job-runner process: Agenda workers, no HTTP. Any number of runners may share one database. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const log = createLogger('jobs', config.LOG_LEVEL);
  const databaseUrl = requireDatabaseUrl(config);
  const orm = await openOrm({ databaseUrl, poolMax: config.DB_POOL_MAX });
  const services = createServices(config, systemClock);
  const deps = { orm, services, log };
  const agenda = createAgenda(config, databaseUrl, `jobs-${process.pid}`, log);

  for (const job of jobs) {
    agenda.define(job.name, async (agendaJob) => {
      await job.run(deps, agendaJob.attrs.data);
    });
  }
  agenda.on('fail', (error: Error, job: { attrs: { name: string } }) =>
    log.error({ err: error, job: job.attrs.name }, 'job failed'),
  );

  await agenda.start();
  for (const job of jobs) {
    if (job.everyMs) await agenda.every(job.everyMs(deps), job.name);
  }
  // A fresh deployment gets its first rate at once, not one interval later.
  await agenda.now(generateRatesJob.name);
  log.info(
    { event: 'ready', backend: backendName(config), jobs: jobs.map((j) => j.name) },
    'job runner ready',
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'job runner stopping');
    // Lets running jobs finish and unlocks the rest for other runners.
    await agenda.stop();
    await orm.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error) => {
  process.stderr.write(
    `job runner failed to start: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
