import 'reflect-metadata';
import { loadConfigOrExit } from './config';
import { systemClock } from './clock';
import { serviceLogger } from './logger';
import { openOrm } from './orm';
import { createServices } from './container';
import { installSanctionsListAtStart } from './sanctions';
import { refuseSimulationsInProduction } from './config-production';
import { startBankProviderChecks } from './adapters/bank/bank-providers';
import { buildGateway } from './api/server';
import { buildInternalServer } from './api/internal-server';
import { AddressLimiter } from './api/address-limit';
import { createRateLimitStore } from './api/rate-limit';
import { createGatewayMetrics } from './metrics/gateway-metrics';
import { VERSION } from './version';
import { startTracing } from './tracing';
import { exitGracefullyOnSignals } from './shutdown';
import { requireDatabaseUrl } from './db/database-url';
import { DepositEventHub } from './api/subscriptions/deposit-event-hub';
import { GATEWAY_LISTEN_APPLICATION_NAME, NotificationHub } from './db/notification-hub';
import { forgetSecrets, hotWalletKeyProblem, warnAboutSecrets } from './crypto/process-secrets';
import { databaseReadyToStart } from './db/database-wait';
import { listenWhileWaiting, type WaitingState } from './api/probes/waiting-listener';
import { providersReport } from './api/probes/providers-report';
import {
  debugRequested,
  exitOnStartupFailure,
  listenFailure,
  STARTUP_EXIT,
  StartupFailure,
} from './lib/startup-failure';

/**
 * Gateway process: REST /v1, GraphQL and graphql-ws on PORT against DATABASE_URL; `/metrics`
 * and `/admin/graphql` on the internal listener (INTERNAL_PORT).
 */
async function main(): Promise<void> {
  const problem = hotWalletKeyProblem(process.env);
  if (problem) throw new StartupFailure(STARTUP_EXIT.configuration, problem);
  const config = loadConfigOrExit();
  refuseSimulationsInProduction(config);
  forgetSecrets(process.env);
  const { log: logger, output: logOutput } = serviceLogger('gateway', config);
  // Before the server is built: with tracing on, every request runs in a span.
  const tracing = await startTracing(config, 'gateway', logger);
  const databaseUrl = requireDatabaseUrl(config);
  const services = createServices(config, systemClock);
  // Both ports answer the probes from the first moment (a taken one fails start-up at once);
  // the gateway itself takes them over once the database answers and is migrated.
  const state: WaitingState = { phase: 'waiting_for_database', database: 'down' };
  const healthFields = () => ({
    environment: config.ONRAMP_ENV,
    version: VERSION,
    providers: providersReport(services),
  });
  const waitingApi = await listenWhileWaiting({
    setting: 'HOST:PORT',
    host: config.HOST,
    port: config.PORT,
    state: () => state,
    healthFields,
  });
  const waitingInternal = await listenWhileWaiting({
    setting: 'INTERNAL_HOST:INTERNAL_PORT',
    host: config.INTERNAL_HOST,
    port: config.INTERNAL_PORT,
    state: () => state,
    healthFields,
  }).catch(async (error: unknown) => {
    await waitingApi.close();
    throw error;
  });
  logger.info(
    { event: 'probes', url: waitingApi.url, internal_url: waitingInternal.url },
    `gateway answering /livez on ${waitingApi.url}; connecting to the database`,
  );
  // Until the drain below is installed, a stop signal ends the wait at once: nothing is in flight.
  const stopWhileStarting = () => process.exit(0);
  process.once('SIGTERM', stopWhileStarting).once('SIGINT', stopWhileStarting);
  await databaseReadyToStart({
    databaseUrl,
    maxWaitSeconds: config.DATABASE_WAIT_SECONDS,
    log: logger,
  });
  Object.assign(state, { phase: 'starting', database: 'ok' });

  const orm = await openOrm({ databaseUrl, poolMax: config.DB_POOL_MAX });
  // Before any traffic: the list every refusal below screens against (issue 36).
  await installSanctionsListAtStart(orm.em, services.sanctions, config.SANCTIONS_LIST_PATH, logger);
  warnAboutSecrets(logger, { encryption: services.encryption });
  startBankProviderChecks(services.bankProviders, config.BANK_PROVIDER_CHECK_SECONDS * 1000, (s) =>
    logger.warn({ provider: s.name, detail: s.detail }, 'bank provider unhealthy'),
  );
  // The one LISTEN connection of this process: every NOTIFY user below subscribes on it.
  const notifications = new NotificationHub({
    databaseUrl,
    applicationName: GATEWAY_LISTEN_APPLICATION_NAME,
    log: logger.child({ component: 'listen' }),
  });
  await notifications.start();
  const depositEvents = new DepositEventHub({
    databaseUrl,
    notifications,
    clock: systemClock,
    log: logger.child({ component: 'deposit-events' }),
  });
  const metrics = createGatewayMetrics({
    orm,
    log: logger,
    depositsRefreshMs: config.DEPOSITS_GAUGE_REFRESH_SECONDS * 1000,
    logOutput,
    commit: config.ONRAMP_COMMIT,
  });
  // One set of counters for both listeners: a failed operator token and a failed API key
  // count against the same address.
  const rateLimitStore = createRateLimitStore(orm, systemClock);
  const limiter = new AddressLimiter(
    rateLimitStore,
    systemClock,
    config.RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE,
  );
  const shared = { orm, services, logger, metrics, limiter };
  const app = await buildGateway({
    ...shared,
    version: VERSION,
    depositEvents,
    notifications,
    rateLimitStore,
  });
  const internal = await buildInternalServer(shared);
  // The waiting listeners hand their ports over (the bound ones, when a setting is 0). The
  // port is closed for the moment between: nothing routes here before /readyz is 200 anyway.
  await waitingInternal.close();
  const internalUrl = await internal
    .listen({ port: waitingInternal.port, host: config.INTERNAL_HOST })
    .catch((error: unknown) => {
      throw listenFailure(error, 'INTERNAL_HOST:INTERNAL_PORT', waitingInternal.url);
    });
  await waitingApi.close();
  const address = await app
    .listen({ port: waitingApi.port, host: config.HOST })
    .catch((error: unknown) => {
      throw listenFailure(error, 'HOST:PORT', waitingApi.url);
    });
  services.resolutionLinks.listeningAt(address);
  logger.info(
    { url: address, internal_url: internalUrl, event: 'listening' },
    `gateway listening on ${address} (metrics and admin on ${internalUrl})`,
  );

  process.off('SIGTERM', stopWhileStarting).off('SIGINT', stopWhileStarting);
  exitGracefullyOnSignals(logger, 'gateway', config.SHUTDOWN_TIMEOUT_MS, async () => {
    // Stops accepting connections, answers requests in flight, closes websockets.
    await app.close();
    // After every subscriber has stopped (in app.close()).
    await notifications.stop();
    await internal.close();
    metrics.close();
    await orm.close();
    await tracing?.shutdown();
  });
}

main().catch((error: unknown) => exitOnStartupFailure('gateway', error, debugRequested()));
