import 'reflect-metadata';
import { loadConfigOrExit } from './config';
import { systemClock } from './clock';
import { serviceLogger } from './logger';
import { openOrm } from './orm';
import { createServices } from './container';
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

/**
 * Gateway process: REST /v1, GraphQL and graphql-ws on PORT against DATABASE_URL; `/metrics`
 * and `/admin/graphql` on the internal listener (INTERNAL_PORT).
 */
async function main(): Promise<void> {
  const problem = hotWalletKeyProblem(process.env);
  if (problem) {
    process.stderr.write(`${problem}\n`);
    process.exit(78); // EX_CONFIG, as for any other configuration problem
  }
  const config = loadConfigOrExit();
  refuseSimulationsInProduction(config);
  forgetSecrets(process.env);
  const { log: logger, output: logOutput } = serviceLogger('gateway', config);
  // Before the server is built: with tracing on, every request runs in a span.
  const tracing = await startTracing(config, 'gateway', logger);
  const databaseUrl = requireDatabaseUrl(config);
  const orm = await openOrm({ databaseUrl, poolMax: config.DB_POOL_MAX });
  const services = createServices(config, systemClock);
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
  // The internal listener first: a taken port stops start-up before the API takes traffic.
  const internalUrl = await internal.listen({
    port: config.INTERNAL_PORT,
    host: config.INTERNAL_HOST,
  });
  const address = await app.listen({ port: config.PORT, host: config.HOST });
  services.resolutionLinks.listeningAt(address);
  logger.info(
    { url: address, internal_url: internalUrl, event: 'listening' },
    `gateway listening on ${address} (metrics and admin on ${internalUrl})`,
  );

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

main().catch((error) => {
  process.stderr.write(
    `gateway failed to start: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
