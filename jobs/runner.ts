import 'reflect-metadata';
import { loadConfigOrExit } from '../src/config';
import { systemClock } from '../src/clock';
import { serviceLogger } from '../src/logger';
import { openOrm } from '../src/orm';
import { requireDatabaseUrl } from '../src/db/database-url';
import { JOBS_LISTEN_APPLICATION_NAME, NotificationHub } from '../src/db/notification-hub';
import { createServices } from '../src/container';
import { refuseSimulationsInProduction } from '../src/config-production';
import { startBankProviderChecks } from '../src/adapters/bank/bank-providers';
import { forgetSecrets, warnAboutSecrets } from '../src/crypto/process-secrets';
import {
  type AgendaStore,
  backendName,
  connectAgenda,
  drainAgenda,
  releaseQueuedJobs,
  removeRetiredJobs,
} from './agenda';
import { jobs } from './index';
import { generateRatesJob } from './generate-rates.job';
import { listenForDepositEvents } from './deposit-events';
import type { Enqueue, JobDeps } from './job';
import { WebhookDispatcher } from '../src/webhooks';
import { exitGracefullyOnSignals } from '../src/shutdown';
import { createJobRunnerMetrics } from '../src/metrics/job-runner-metrics';
import { serveRunnerHttp } from './runner-http';
import { MongoJobStoreHealth } from './job-store-health';
import { depositTraceParents, SettlementDrain } from '../src/deposits';
import { startTracing } from '../src/tracing';
import { CHAINS } from '../src/domain/assets';

const DEFAULT_LOCK_LIFETIME_MS = 30_000;

/**
 * Job-runner process: Agenda workers; HTTP only for health and metrics (JOBS_PORT). Any number
 * of runners may share one database.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  refuseSimulationsInProduction(config);
  forgetSecrets(process.env);
  const { log, output: logOutput } = serviceLogger('jobs', config);
  const tracing = await startTracing(config, 'jobs', log);
  const databaseUrl = requireDatabaseUrl(config);
  const orm = await openOrm({ databaseUrl, poolMax: config.DB_POOL_MAX });
  // Agenda's store, once connected (the queue gauges read MongoDB through it).
  const connected: { store?: AgendaStore } = {};
  const metrics = createJobRunnerMetrics({
    orm,
    log,
    config,
    jobNames: jobs.map((job) => job.name),
    configuredChains: () => services.chains.configured().map((gateway) => gateway.chain),
    logOutput,
    mongoDb: () => connected.store?.mongoDb(),
  });
  const services = createServices(config, systemClock, {
    onBlocklistError: (error) =>
      log.error({ err: error }, 'risk blocklist file unreadable; keeping the last good list'),
    onDepositSettled: metrics.observeSettlement,
    payoutSigningLog: log,
    onBankNotifyError: (error, reference) =>
      log.warn({ err: error, reference }, 'sandbox bank notification failed; the sweep recovers'),
  });
  warnAboutSecrets(log, { encryption: services.encryption });
  startBankProviderChecks(services.bankProviders, config.BANK_PROVIDER_CHECK_SECONDS * 1000, (s) =>
    log.warn({ provider: s.name, detail: s.detail }, 'bank provider unhealthy'),
  );
  // Health and metrics first: a port already taken stops start-up before any job is taken.
  // With MongoDB as Agenda's store, /health reports it too (down until Agenda has connected).
  const mongoHealth = config.AGENDA_MONGODB_URL ? new MongoJobStoreHealth() : undefined;
  const http = await serveRunnerHttp({
    host: config.HOST,
    port: config.JOBS_PORT,
    orm,
    health: services.health,
    registry: metrics.registry,
    log,
    jobStore: mongoHealth,
  });
  for (const { chain, why } of services.chains.missing()) {
    log.warn({ chain }, `${chain} payouts wait: ${why}`);
  }
  // The one LISTEN connection of this process: Agenda's notices and the work triggers below.
  const notifications = new NotificationHub({
    databaseUrl,
    applicationName: JOBS_LISTEN_APPLICATION_NAME,
    log,
  });
  await notifications.start();
  const agendaName = `jobs-${process.pid}`;
  const agendaStore = await connectAgenda(config, databaseUrl, agendaName, log, notifications);
  connected.store = agendaStore;
  const { agenda } = agendaStore;
  const mongoDb = agendaStore.mongoDb();
  if (mongoHealth && mongoDb) mongoHealth.attach(mongoDb);
  const retired = await removeRetiredJobs(agenda);
  if (retired > 0) log.info({ retired }, 'jobs of retired names removed');
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
    metrics.observeWebhookAttempt,
    // Tracing on: each attempt of a deposit's event joins the deposit's trace.
    tracing ? depositTraceParents : undefined,
  );
  const settlement = new SettlementDrain(
    services.settlement,
    () => orm.em.fork(),
    log,
    config.SETTLEMENT_BATCH_SIZE,
    config.SETTLEMENT_GATHER_MS,
  );
  const deps: JobDeps = { orm, services, log, enqueue, webhooks, settlement };
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
  // Agenda reports its own trouble (a lost database, say) as 'error'; unheard, it would crash
  // the runner instead of letting it retry when the database is back.
  agenda.on('error', (error: Error) => log.warn({ err: error }, 'agenda error'));

  await agenda.start();
  for (const job of enabled) {
    if (job.everyMs) await agenda.every(job.everyMs(deps), job.name);
  }
  // A payout notice wakes its chain's signing drain after a short gathering window; a notice
  // without a known chain wakes every chain's (the drains find the work in the database).
  const signPending = (chain: string | undefined) => {
    const chains = chain && (CHAINS as readonly string[]).includes(chain) ? [chain] : CHAINS;
    for (const c of chains) {
      services.payouts.signPendingSoon(() => orm.em.fork(), c, config.PAYOUT_SIGN_GATHER_MS);
    }
  };
  const depositEvents = listenForDepositEvents(
    notifications,
    log,
    () => void webhooks.wake(),
    () => void settlement.wake(),
    signPending,
    () => void services.returnSender.wake(() => orm.em.fork()),
  );
  await depositEvents.start();
  // Payouts are confirmed block by block; the process-payouts sweep only repairs.
  services.payoutFollower.start({
    pollMs: config.PAYOUT_BLOCK_POLL_MS,
    openEm: () => orm.em.fork(),
    log,
  });
  // Deposits that arrived while no runner listened are settled now, not one sweep later; so
  // are payouts (those an older version left to its send-payout jobs among them).
  void settlement.wake();
  for (const c of CHAINS) void services.payouts.signPending(orm.em.fork(), c);
  // A fresh deployment gets its first rate at once, not one interval later.
  await agenda.now(generateRatesJob.name);
  log.info(
    {
      event: 'ready',
      backend: backendName(config),
      jobs: enabled.map((j) => j.name),
      metrics_url: `${http.url}/metrics`,
    },
    'job runner ready',
  );

  exitGracefullyOnSignals(log, 'job runner', config.SHUTDOWN_TIMEOUT_MS, async () => {
    // No new triggers; then Agenda stops picking jobs and waits for the running ones, and the
    // jobs it had locked but not started are handed back to the other runners at once.
    await depositEvents.stop();
    // The settlement batch in progress is applied; no new one is claimed. The signing rounds
    // in progress commit and broadcast; no new one starts.
    await settlement.stop();
    await services.payouts.stopSigning();
    // The block being settled is booked; no new one is read.
    await services.payoutFollower.stop();
    await drainAgenda(agenda, Math.max(1_000, config.SHUTDOWN_TIMEOUT_MS - 5_000));
    const released = await releaseQueuedJobs(orm, config, agendaName);
    log.info({ released }, 'queued jobs handed back to other runners');
    // Webhook attempts in flight finish and are recorded; nothing new is claimed.
    await webhooks.stop();
    await agendaStore.close();
    await notifications.stop();
    // Health and metrics answer until the end of the drain.
    await http.close();
    metrics.close();
    await orm.close();
    await tracing?.shutdown();
  });
}

main().catch((error) => {
  process.stderr.write(
    `job runner failed to start: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
