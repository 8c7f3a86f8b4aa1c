import { createServer } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import { MongoClient } from 'mongodb';
import pino from 'pino';
import { Registry } from 'prom-client';
import { HealthService } from '../../src/system';
import { serveRunnerHttp } from '../../jobs/runner-http';
import { MongoJobStoreHealth, type JobStoreHealth } from '../../jobs/job-store-health';
import { createTestDatabase, openTestOrm } from '../support/db';

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

  async function health(jobStore?: JobStoreHealth) {
    const http = await serveRunnerHttp({
      host: '127.0.0.1',
      port: 0,
      orm,
      health: new HealthService(),
      registry: new Registry(),
      log: pino({ level: 'silent' }),
      jobStore,
    });
    try {
      const response = await fetch(`${http.url}/health`);
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
});
