/**
 * `node dist/bench/probe/rest-read-inject.js > /dev/null`, after `npm run build` and
 * `npx tsc -p tsconfig.bench.json`: the gateway's CPU per `GET /v1/deposits/{id}` with no
 * HTTP syscalls in the way. A fresh bench stack (embedded PostgreSQL, a gateway and a job
 * runner) seeds a few settled deposits; this process then builds the real gateway
 * (`buildGateway`, as src/gateway.ts does, logging at info to stdout) and runs `app.inject()`
 * reads in rounds of CONCURRENCY, printing microseconds of CPU per request to stderr.
 * `PROBE_PROFILE=file.cpuprofile` writes a V8 CPU profile of the measured loop;
 * `PROBE_PATH=/v1/rates?from=NGN&to=USDC` measures another GET instead.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { systemClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices } from '../../src/container';
import { openOrm } from '../../src/orm';
import { GATEWAY_LISTEN_APPLICATION_NAME, NotificationHub } from '../../src/db/notification-hub';
import { createLogger } from '../../src/logger';
import { buildGateway } from '../../src/api/server';
import { AddressLimiter } from '../../src/api/address-limit';
import { createRateLimitStore } from '../../src/api/rate-limit';
import { createGatewayMetrics } from '../../src/metrics/gateway-metrics';
import { api, permanentOnramp } from '../lib/merchant-api';
import { startBenchStack } from '../lib/stack';

const REQUESTS = Number(process.env.PROBE_REQUESTS ?? 20_000);
const CONCURRENCY = 16;
const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 3);

const log = (line: string) => process.stderr.write(`${line}\n`);

function post(session: Session, method: string, params: object = {}): Promise<unknown> {
  return new Promise((resolve, reject) =>
    session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))),
  );
}

async function main(): Promise<void> {
  const bench = await startBenchStack({ env: { RATE_LIMIT_PER_MINUTE: '100000000' } });
  try {
    const key = bench.merchant.api_key;
    const account = await permanentOnramp(bench.stack.url, key);
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const r = await api<{ deposit_id: string }>(
        bench.stack.url,
        key,
        'POST',
        '/v1/sandbox/deposits',
        {
          account_number: account,
          amount_ngn: '15000',
          bank_reference: `PROBE-${i}`,
        },
      );
      ids.push(r.body.deposit_id);
    }
    // Each variant (configuration overrides) gets its own gateway; rounds alternate between them.
    const variants = JSON.parse(process.env.PROBE_VARIANTS ?? '[{}]') as Array<
      Record<string, string>
    >;
    const gateways: Array<{
      label: string;
      app: Awaited<ReturnType<typeof buildGateway>>;
      orm: Awaited<ReturnType<typeof openOrm>>;
      notifications: NotificationHub;
      metrics: ReturnType<typeof createGatewayMetrics>;
    }> = [];
    for (const overrides of variants) {
      const config = loadConfig({
        ...process.env,
        ONRAMP_ENV: 'sandbox',
        DATABASE_URL: bench.databaseUrl,
        RATE_LIMIT_PER_MINUTE: '100000000',
        LOG_LEVEL: 'info',
        DB_POOL_MAX: '10',
        ...overrides,
      });
      const logger = createLogger('gateway', config.LOG_LEVEL);
      const orm = await openOrm({ databaseUrl: bench.databaseUrl, poolMax: config.DB_POOL_MAX });
      const services = createServices(config, systemClock);
      const metrics = createGatewayMetrics({ orm, log: logger, depositsRefreshMs: 60_000 });
      const rateLimitStore = createRateLimitStore(orm, systemClock);
      const limiter = new AddressLimiter(rateLimitStore, systemClock, 1_000_000);
      // As src/gateway.ts: key cache and rates from memory, through the process's LISTEN.
      const notifications = new NotificationHub({
        databaseUrl: bench.databaseUrl,
        applicationName: GATEWAY_LISTEN_APPLICATION_NAME,
        log: logger,
      });
      await notifications.start();
      const app = await buildGateway({
        orm,
        services,
        logger,
        metrics,
        notifications,
        limiter,
        rateLimitStore,
        version: 'probe',
      });
      await app.ready();
      gateways.push({ label: JSON.stringify(overrides), app, orm, notifications, metrics });
    }
    const headers = { authorization: `Bearer ${key}` };
    const path = process.env.PROBE_PATH;
    let n = 0;
    const run = async (app: (typeof gateways)[number]['app'], count: number) => {
      const once = async () => {
        const url = path ?? `/v1/deposits/${ids[n++ % ids.length]}`;
        const response = await app.inject({ method: 'GET', url, headers });
        if (response.statusCode !== 200) {
          throw new Error(`${url}: ${response.statusCode} ${response.body}`);
        }
      };
      for (let i = 0; i < count; i += CONCURRENCY) {
        await Promise.all(Array.from({ length: CONCURRENCY }, once));
      }
    };
    for (const g of gateways) await run(g.app, 2_000); // warm-up: JIT, pools, caches
    const session = new Session();
    if (process.env.PROBE_PROFILE) {
      session.connect();
      await post(session, 'Profiler.enable');
      await post(session, 'Profiler.setSamplingInterval', { interval: 100 });
      await post(session, 'Profiler.start');
    }
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const g of gateways) {
        const cpu = process.cpuUsage();
        const started = performance.now();
        await run(g.app, REQUESTS);
        const used = process.cpuUsage(cpu);
        const wall = performance.now() - started;
        log(
          `round ${round + 1} ${g.label}: ${((used.user + used.system) / REQUESTS).toFixed(1)} ` +
            `us CPU/request (user ${(used.user / REQUESTS).toFixed(1)}), ` +
            `${((REQUESTS / wall) * 1000).toFixed(0)} req/s`,
        );
      }
    }
    if (process.env.PROBE_PROFILE) {
      const { profile } = (await post(session, 'Profiler.stop')) as { profile: unknown };
      writeFileSync(process.env.PROBE_PROFILE, JSON.stringify(profile));
      session.disconnect();
    }
    for (const g of gateways) {
      await g.app.close();
      await g.notifications.stop();
      g.metrics.close();
      await g.orm.close();
    }
  } finally {
    await bench.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    log(String((error as Error)?.stack ?? error));
    process.exit(1);
  },
);
