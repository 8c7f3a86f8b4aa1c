import { createServer } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import { MongoClient } from 'mongodb';
import pino from 'pino';
import { Registry } from 'prom-client';
import { HealthService } from '../../src/system';
import { serveRunnerHttp } from '../../jobs/runner-http';
import { MongoJobStoreHealth, type JobStoreHealth } from '../../jobs/job-store-health';
import { createTestDatabase, openTestOrm } from '../support/db';
import type { Phase } from '../../src/lib/readiness';

/**
 * The runner's /health over a real database, with and without a MongoDB job store. A MongoDB
 * that does not answer is a real client pointed at a closed port; one that answers needs a
 * server (AGENDA_MONGODB_URL), so that case runs only when one is given.
 */
const MONGODB_URL = process.env.AGENDA_MONGODB_URL;

/** A loopback port nothing listens on (bound, read, closed). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe("the job runner's /health", () => {
  let orm: MikroORM;
  const clients: MongoClient[] = [];

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await orm.close();
  });

  async function health(
    jobStore?: JobStoreHealth,
    path = '/health',
    state: { phase: Phase; orm?: MikroORM } = { phase: 'running', orm },
  ) {
    const http = await serveRunnerHttp({
      host: '127.0.0.1',
      port: 0,
      log: pino({ level: 'silent' }),
      probes: {
        phase: () => state.phase,
        orm: () => state.orm,
        health: new HealthService(),
        registry: () => (state.orm ? new Registry() : undefined),
        jobStore,
      },
    });
    try {
      const response = await fetch(`${http.url}${path}`);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    } finally {
      await http.close();
    }
  }

  function mongoClient(url: string): MongoClient {
    const client = new MongoClient(url, { serverSelectionTimeoutMS: 1_000 });
    clients.push(client);
    return client;
  }

  it('with PostgreSQL as the job store: the database alone, no mongodb field', async () => {
    expect(await health()).toEqual({ status: 200, body: { status: 'ok', database: 'ok' } });
  });

  it('with MongoDB not connected yet: 503 naming MongoDB, the database still ok', async () => {
    const answer = await health(new MongoJobStoreHealth());
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({
      status: 'unavailable',
      database: 'ok',
      mongodb: 'down',
      error: { code: 'service_unavailable', message: 'MongoDB (the job store) is unreachable' },
    });
  });

  it('with MongoDB unreachable: 503 within the probe timeout, not the driver’s 30 s', async () => {
    const store = new MongoJobStoreHealth(500);
    // The driver's own wait (serverSelectionTimeoutMS) is longer than the probe's here.
    const client = new MongoClient(`mongodb://127.0.0.1:${await closedPort()}/agenda`, {
      serverSelectionTimeoutMS: 10_000,
    });
    clients.push(client);
    store.attach(client.db());
    const started = performance.now();
    const answer = await health(store);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ database: 'ok', mongodb: 'down' });
  });

  (MONGODB_URL ? it : it.skip)(
    `with MongoDB answering: 200 with "mongodb": "ok"${MONGODB_URL ? '' : ' (needs AGENDA_MONGODB_URL)'}`,
    async () => {
      const store = new MongoJobStoreHealth();
      const client = mongoClient(MONGODB_URL!);
      await client.connect();
      store.attach(client.db());
      expect(await health(store)).toEqual({
        status: 200,
        body: { status: 'ok', database: 'ok', mongodb: 'ok' },
      });
    },
  );

  it('/readyz: 200 running with the database as the job store, naming the backend', async () => {
    expect(await health(undefined, '/readyz')).toEqual({
      status: 200,
      body: {
        status: 'ok',
        process: 'job runner',
        phase: 'running',
        checks: { database: 'ok', job_store: 'ok' },
        job_store_backend: 'postgres',
      },
    });
  });

  it('/readyz: 503 naming MongoDB as the failed check while it is not connected', async () => {
    const answer = await health(new MongoJobStoreHealth(), '/readyz');
    expect(answer).toMatchObject({
      status: 503,
      body: {
        status: 'unavailable',
        checks: { database: 'ok', job_store: 'down' },
        job_store_backend: 'mongodb',
        failed: ['job_store'],
        error: { code: 'service_unavailable', message: 'Not ready: job_store is down' },
      },
    });
  });

  it('before the database answered: /livez 200, /readyz, /health and /metrics 503', async () => {
    const waiting = { phase: 'waiting_for_database' as const };
    expect(await health(undefined, '/livez', waiting)).toEqual({
      status: 200,
      body: { status: 'ok', process: 'job runner', phase: 'waiting_for_database' },
    });
    expect(await health(undefined, '/readyz', waiting)).toMatchObject({
      status: 503,
      body: {
        phase: 'waiting_for_database',
        failed: ['database', 'job_store'],
        error: {
          message:
            'Not ready: the job runner is waiting for the database; database is down; job_store is down',
        },
      },
    });
    expect(await health(undefined, '/health', waiting)).toMatchObject({
      status: 503,
      body: { database: 'down', error: { code: 'service_unavailable' } },
    });
    expect(await health(undefined, '/metrics', waiting)).toMatchObject({
      status: 503,
      body: { error: { code: 'service_unavailable' } },
    });
  });

  it('/readyz while draining: 503 (phase stopping) though every check is ok', async () => {
    const answer = await health(undefined, '/readyz', { phase: 'stopping', orm });
    expect(answer).toMatchObject({
      status: 503,
      body: { phase: 'stopping', checks: { database: 'ok', job_store: 'ok' }, failed: [] },
    });
  });
});
