import 'reflect-metadata';
import { loadConfigOrExit } from '../src/config';
import { systemClock } from '../src/clock';
import { serviceLogger } from '../src/logger';
import { openOrm } from '../src/orm';
import { requireDatabaseUrl } from '../src/db/database-url';
import { JOBS_LISTEN_APPLICATION_NAME, NotificationHub } from '../src/db/notification-hub';
import { createServices } from '../src/container';
import { installSanctionsListAtStart } from '../src/sanctions';
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
import { serveRunnerHttp, type RunnerHttp } from './runner-http';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../src/config';
import type { Services } from '../src/container';
import type { LogOutput } from '../src/logger';
import { HealthService } from '../src/system';
import { databaseReadyToStart } from '../src/db/database-wait';
import type { Phase } from '../src/lib/readiness';
import { debugRequested, exitOnStartupFailure } from '../src/lib/startup-failure';
import { providersReport } from '../src/api/probes/providers-report';
import type { Registry } from 'prom-client';
import { MongoJobStoreHealth } from './job-store-health';
import { depositTraceParents, SettlementDrain } from '../src/deposits';
import { startTracing, type Tracing } from '../src/tracing';
import { CHAINS } from '../src/domain/assets';
import { lowBalanceThresholds } from '../src/domain/hot-wallet-funds';

const DEFAULT_LOCK_LIFETIME_MS = 30_000;

/** What the runner's HTTP reports, filled in as start-up goes. */
interface ProbeState {
  phase: Phase;
  orm?: MikroORM;
  metrics?: { registry: Registry };
  services?: Services;
}

// Until the drain is installed, a stop signal ends start-up at once: no job runs yet.
const stopWhileStarting = () => process.exit(0);

/**
 * Job-runner process: Agenda workers; HTTP only for probes, health and metrics (JOBS_PORT),
 * served from the first moment: a port already taken stops start-up at once (exit 71), and
 * while the database does not answer the runner is live (/livez) and not ready (/readyz). Any
 * number of runners may share one database.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  refuseSimulationsInProduction(config);
  forgetSecrets(process.env);
  const { log, output: logOutput } = serviceLogger('jobs', config);
  const tracing = await startTracing(config, 'jobs', log);
  const databaseUrl = requireDatabaseUrl(config);
  // With MongoDB as Agenda's store, it is reported too (down until Agenda has connected).
  const mongoHealth = config.AGENDA_MONGODB_URL ? new MongoJobStoreHealth() : undefined;
  const probes: ProbeState = { phase: 'waiting_for_database' };
  const http = await serveRunnerHttp({
    host: config.HOST,
    port: config.JOBS_PORT,
    log,
    probes: {
      phase: () => probes.phase,
      orm: () => probes.orm,
      health: new HealthService(),
      registry: () => probes.metrics?.registry,
      jobStore: mongoHealth,
      providers: () => probes.services && providersReport(probes.services),
    },
    chainNodes: () => probes.services?.chains.configured() ?? [],
  });
  log.info({ event: 'probes', url: http.url }, `job runner answering /livez on ${http.url}`);
  process.once('SIGTERM', stopWhileStarting).once('SIGINT', stopWhileStarting);
  await databaseReadyToStart({ databaseUrl, maxWaitSeconds: config.DATABASE_WAIT_SECONDS, log });
  probes.phase = 'starting';
  await startJobs({ config, log, logOutput, databaseUrl, http, mongoHealth, probes, tracing });
}

/** Everything that needs the database: the ORM, the services, Agenda and the drains. */
async function startJobs(options: {
  config: Config;
  log: Logger;
  logOutput: LogOutput;
  databaseUrl: string;
  http: RunnerHttp;
  mongoHealth: MongoJobStoreHealth | undefined;
  probes: ProbeState;
  tracing: Tracing | null;
}): Promise<void> {
  const { config, log, logOutput, databaseUrl, http, mongoHealth, probes, tracing } = options;
  const orm = await openOrm({ databaseUrl, poolMax: config.DB_POOL_MAX });
  probes.orm = orm;
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
    chainNodes: {
      gateways: () => services.chains.configured(),
      thresholds: (chain) => lowBalanceThresholds(config, chain),
      paused: (chain) => services.payouts.funds.paused(chain),
    },
  });
  probes.metrics = metrics;
  const services = createServices(config, systemClock, {
    onBlocklistError: (error) =>
      log.error({ err: error }, 'risk blocklist file unreadable; keeping the last good list'),
    onDepositSettled: metrics.observeSettlement,
    payoutSigningLog: log,
    onBankNotifyError: (error, reference) =>
      log.warn({ err: error, reference }, 'sandbox bank notification failed; the sweep recovers'),
  });
  probes.services = services;
  warnAboutSecrets(log, { encryption: services.encryption });
  // Before any job: the list settlement and payout signing screen against (issue 36).
  await installSanctionsListAtStart(orm.em, services.sanctions, config.SANCTIONS_LIST_PATH, log);
  startBankProviderChecks(services.bankProviders, config.BANK_PROVIDER_CHECK_SECONDS * 1000, (s) =>
    log.warn({ provider: s.name, detail: s.detail }, 'bank provider unhealthy'),
  );
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
  probes.phase = 'running';
  log.info(
    {
      event: 'ready',
      backend: backendName(config),
      jobs: enabled.map((j) => j.name),
      metrics_url: `${http.url}/metrics`,
    },
    'job runner ready',
  );

  process.off('SIGTERM', stopWhileStarting).off('SIGINT', stopWhileStarting);
  exitGracefullyOnSignals(log, 'job runner', config.SHUTDOWN_TIMEOUT_MS, async () => {
    // /readyz answers 503 from now on: an orchestrator stops counting on this runner.
    probes.phase = 'stopping';
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

main().catch((error: unknown) => exitOnStartupFailure('job runner', error, debugRequested()));
