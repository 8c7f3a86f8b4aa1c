import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { createTestDatabase } from '../support/db';
import { request } from '../support/http';
import { createBalanceOnramp, sandboxTransfer } from '../support/onramps';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';

/**
 * The same assertions against each store Agenda can keep its jobs in: PostgreSQL (the
 * default, always run) and MongoDB (run when AGENDA_MONGODB_URL names a server; no MongoDB
 * server can be installed on the development machines, so there it is skipped, saying so).
 *
 * Agenda's poll (JOB_POLL_MS) and the settlement sweep are set far longer than the bounds
 * below, so what is asserted to happen at once can only have been woken: a deposit by the
 * database's NOTIFY, the runner's own jobs by the store's notification channel.
 */
const MONGODB_URL = process.env.AGENDA_MONGODB_URL;
const POLL_MS = 60_000;
const WITHIN_MS = 15_000;

/** The same server, a database of this file's own (dropped afterwards). */
function isolatedMongoUrl(url: string, database: string): string {
  const match = /^(mongodb(?:\+srv)?:\/\/[^/?]+)\/?([^?]*)(\?.*)?$/.exec(url);
  if (!match) throw new Error(`AGENDA_MONGODB_URL is not a mongodb:// URL: ${url}`);
  return `${match[1]}/${database}${match[3] ?? ''}`;
}

const backends: Array<{ name: 'postgres' | 'mongodb'; mongoUrl?: string }> = [
  { name: 'postgres' },
  ...(MONGODB_URL
    ? [
        {
          name: 'mongodb' as const,
          mongoUrl: isolatedMongoUrl(MONGODB_URL, `onramp_e2e_${randomBytes(4).toString('hex')}`),
        },
      ]
    : []),
];

if (!MONGODB_URL) {
  describe('Agenda on MongoDB', () => {
    it.skip('skipped: set AGENDA_MONGODB_URL (e.g. mongodb://127.0.0.1:27017/agenda) to run the job-store suite against MongoDB', () =>
      undefined);
  });
}

describe.each(backends)('Agenda on $name', ({ name, mongoUrl }) => {
  let stack: Stack;
  let databaseUrl: string;
  let runnerHealthUrl: string;
  let readyAt: number;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: {
        JOB_POLL_MS: String(POLL_MS),
        SETTLEMENT_SWEEP_MS: String(10 * POLL_MS),
        ...(mongoUrl ? { AGENDA_MONGODB_URL: mongoUrl } : {}),
      },
    });
    readyAt = Date.now();
    runnerHealthUrl = stack.runners[0].metricsUrl!.replace(/\/metrics$/, '/health');
  });
  afterAll(async () => {
    await stack?.stop();
    if (mongoUrl) {
      const client = new MongoClient(mongoUrl);
      await client
        .db()
        .dropDatabase()
        .finally(() => client.close());
    }
  });

  it(`the runner says it runs on ${name}, and /health reports every store it needs`, async () => {
    const ready = stack.runners[0].logs
      .map((line) => {
        try {
          return JSON.parse(line) as Record<string, unknown>;
        } catch {
          return undefined;
        }
      })
      .find((entry) => entry?.event === 'ready');
    expect(ready?.backend).toBe(name);
    const health = await request(runnerHealthUrl.replace(/\/health$/, ''), 'GET', '/health');
    expect(health.status).toBe(200);
    // The chains' RPC nodes (issue 35) are reported beside the stores, never failing /health.
    const { chains: _chains, ...stores } = health.body;
    expect(stores).toEqual({
      status: 'ok',
      database: 'ok',
      ...(name === 'mongodb' ? { mongodb: 'ok' } : {}),
    });
  });

  it('the first rates are published at once, not one poll later', async () => {
    const { api_key: key } = await createMerchant(databaseUrl, `Rates on ${name}`);
    await eventually(async () => {
      const rates = await request(stack.url, 'GET', '/v1/rates?from=NGN&to=USDC', { key });
      return rates.status === 200 ? true : undefined;
    }, WITHIN_MS);
    expect(Date.now() - readyAt).toBeLessThan(WITHIN_MS);
  });

  it('a deposit settles at once: woken by the database NOTIFY, not by the poll or the sweep', async () => {
    const { api_key: key } = await createMerchant(databaseUrl, `Settlement on ${name}`);
    const onramp = await createBalanceOnramp(stack.url, key);
    const started = Date.now();
    const deposit = await sandboxTransfer(
      stack.url,
      key,
      onramp.virtual_account.account_number,
      '25000',
    );
    const settled = await eventually(async () => {
      const read = await request(stack.url, 'GET', `/v1/deposits/${deposit.deposit_id}`, { key });
      return read.body.status === 'SETTLED' ? read.body : undefined;
    }, WITHIN_MS);
    expect(settled.amount_asset).toMatch(/^\d+\.\d{6}$/);
    expect(Date.now() - started).toBeLessThan(WITHIN_MS);
  });

  it('stops on SIGTERM after draining, exit code 0', async () => {
    const runner = stack.runners[0];
    await runner.stop();
    expect(runner.child.exitCode).toBe(0);
    expect(runner.logs.some((line) => line.includes('"event":"stopped"'))).toBe(true);
  });
});
