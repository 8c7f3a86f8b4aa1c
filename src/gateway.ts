import 'reflect-metadata';
import { loadConfigOrExit } from './config';
import { systemClock } from './clock';
import { createLogger } from './logger';
import { openOrm } from './db/orm';
import { createServices } from './services';
import { buildGateway } from './api/server';
import { VERSION } from './version';
import { exitGracefullyOnSignals } from './shutdown';
import { requireDatabaseUrl } from './db/database-url';
import { DepositEventHub } from './api/subscriptions/deposit-event-hub';
import { dropHotWalletKey, warnAboutSecrets } from './crypto/process-secrets';

/** Gateway process: REST /v1, GraphQL and graphql-ws against DATABASE_URL. */
async function main(): Promise<void> {
  const droppedHotWalletKey = dropHotWalletKey(process.env);
  const config = loadConfigOrExit();
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const databaseUrl = requireDatabaseUrl(config);
  const orm = await openOrm({ databaseUrl, poolMax: config.DB_POOL_MAX });
  const services = createServices(config, systemClock);
  warnAboutSecrets(logger, { droppedHotWalletKey, encryption: services.encryption });
  const depositEvents = new DepositEventHub({
    databaseUrl,
    clock: systemClock,
    log: logger.child({ component: 'deposit-events' }),
  });
  const app = await buildGateway({ orm, services, logger, version: VERSION, depositEvents });
  const address = await app.listen({ port: config.PORT, host: config.HOST });
  logger.info({ url: address, event: 'listening' }, `gateway listening on ${address}`);

  exitGracefullyOnSignals(logger, 'gateway', config.SHUTDOWN_TIMEOUT_MS, async () => {
    // Stops accepting connections, answers requests in flight, closes websockets.
    await app.close();
    await orm.close();
  });
}

main().catch((error) => {
  process.stderr.write(
    `gateway failed to start: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
