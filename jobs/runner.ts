import 'reflect-metadata';
import { loadConfigOrExit } from '../src/config';
import { systemClock } from '../src/clock';
import { createLogger } from '../src/logger';
import { openOrm } from '../src/db/orm';
import { requireDatabaseUrl } from '../src/db/database-url';
import { createServices } from '../src/services';
import { backendName, connectAgenda } from './agenda';
import { jobs } from './index';
import { generateRatesJob } from './generate-rates.job';
import { listenForDepositEvents } from './deposit-events';
import type { Enqueue, JobDeps } from './job';
import { WebhookDispatcher } from './webhook-dispatcher';

const DEFAULT_LOCK_LIFETIME_MS = 30_000;

/** Job-runner process: Agenda workers, no HTTP. Any number of runners may share one database. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const log = createLogger('jobs', config.LOG_LEVEL);
  const databaseUrl = requireDatabaseUrl(config);
  const orm = await openOrm({ databaseUrl, poolMax: config.DB_POOL_MAX });
  const services = createServices(config, systemClock, {
    onBlocklistError: (error) =>
      log.error({ err: error }, 'risk blocklist file unreadable; keeping the last good list'),
  });
  for (const { chain, why } of services.chains.missing()) {
    log.warn({ chain }, `${chain} payouts wait: ${why}`);
  }
  const agenda = await connectAgenda(config, databaseUrl, `jobs-${process.pid}`, log);
  // One pending job per key: asking again reschedules it to now instead of adding another.
  const enqueue: Enqueue = async (name, data, uniqueKey) => {
    const job = agenda.create(name, { ...data, uniqueKey });
    job.unique({ 'data.uniqueKey': uniqueKey });
    job.schedule(services.clock.now());
    await job.save();
  };
  const webhooks = new WebhookDispatcher(
    orm,
    services.webhookDeliveries,
    {
      concurrency: config.WEBHOOK_CONCURRENCY,
      perEndpoint: config.WEBHOOK_ENDPOINT_CONCURRENCY,
    },
    log,
  );
  const deps: JobDeps = { orm, services, log, enqueue, webhooks };
  const enabled = jobs.filter((job) => job.enabled?.(deps) ?? true);

  for (const job of enabled) {
    agenda.define(
      job.name,
      async (agendaJob) => {
        await job.run(deps, agendaJob.attrs.data);
      },
      {
        ...(job.concurrency ? { concurrency: job.concurrency } : {}),
        // Agenda's default (10 min) would let a runner killed mid-job hold its lock that long:
        // a sweep or trigger stalled for minutes. Our jobs are short and safe to repeat.
        lockLifetime: job.lockLifetimeMs ?? DEFAULT_LOCK_LIFETIME_MS,
        ...(job.removeOnComplete ? { removeOnComplete: true } : {}),
      },
    );
  }
  agenda.on('fail', (error: Error, job: { attrs: { name: string } }) =>
    log.error({ err: error, job: job.attrs.name }, 'job failed'),
  );

  await agenda.start();
  for (const job of enabled) {
    if (job.everyMs) await agenda.every(job.everyMs(deps), job.name);
  }
  const depositEvents = listenForDepositEvents(databaseUrl, enqueue, log, () => {
    void webhooks.wake();
  });
  await depositEvents.start();
  // A fresh deployment gets its first rate at once, not one interval later.
  await agenda.now(generateRatesJob.name);
  log.info(
    { event: 'ready', backend: backendName(config), jobs: enabled.map((j) => j.name) },
    'job runner ready',
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'job runner stopping');
    await depositEvents.stop();
    // Lets running jobs finish and unlocks the rest for other runners.
    await agenda.stop();
    // Attempts in flight finish and are recorded; nothing new is claimed.
    await webhooks.stop();
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
