import { createTestDatabase } from '../support/db';
import { request } from '../support/http';
import { createBalanceOnramp, sandboxTransfer } from '../support/onramps';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';
import { sql } from '../support/sql';
import {
  GATEWAY_LISTEN_APPLICATION_NAME,
  JOBS_LISTEN_APPLICATION_NAME,
} from '../../src/db/notification-hub';

/**
 * Agenda's poll and the settlement sweep are far longer than the bounds below, so what
 * happens within them was woken by a notice on the runner's one LISTEN connection.
 */
const POLL_MS = 60_000;
const WITHIN_MS = 15_000;

/**
 * The real processes (dist/): a gateway and a job runner each hold exactly one LISTEN
 * connection to the database, whatever listens inside them (the gateway's key cache, rates,
 * socket credential checks and deposit events; the runner's work triggers and Agenda's job
 * notices), and each gets its channels back after its connection is terminated.
 */
describe('one LISTEN connection per process (gateway and job runner)', () => {
  let stack: Stack;
  let databaseUrl: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: { JOB_POLL_MS: String(POLL_MS), SETTLEMENT_SWEEP_MS: String(10 * POLL_MS) },
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** This database's connections whose last statement was a LISTEN or UNLISTEN. */
  const listeners = () =>
    sql<{ application_name: string; pid: number }>(
      databaseUrl,
      `select application_name, pid from pg_stat_activity
        where datname = current_database() and query ~* '^\\s*(un)?listen\\s'`,
    );
  /** How many of them each application name has. */
  async function listening(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const row of await listeners()) {
      counts[row.application_name] = (counts[row.application_name] ?? 0) + 1;
    }
    return counts;
  }
  const oneEach = {
    [GATEWAY_LISTEN_APPLICATION_NAME]: 1,
    [JOBS_LISTEN_APPLICATION_NAME]: 1,
  };

  it('holds one LISTEN connection in the gateway and one in the runner, nothing else', async () => {
    expect(await listening()).toEqual(oneEach);
  });

  it('runs the runner’s own first rates at once: Agenda’s notice came over that connection', async () => {
    const { api_key: key } = await createMerchant(databaseUrl, 'Rates Co');
    await eventually(async () => {
      const rates = await request(stack.url, 'GET', '/v1/rates?from=NGN&to=USDC', { key });
      return rates.status === 200 ? true : undefined;
    }, WITHIN_MS);
  });

  it('after both connections are terminated, each process LISTENs again on one connection, and a deposit settles at once', async () => {
    const before = (await listeners()).map((row) => row.pid);
    const terminated = await sql(
      databaseUrl,
      'select pg_terminate_backend(pid) from pg_stat_activity where pid = any($1)',
      [before],
    );
    expect(terminated).toHaveLength(2);
    // Reconnected (1 s later), every channel on one new connection in each process.
    await eventually(async () => {
      const now = await listeners();
      return now.length === 2 && now.every((row) => !before.includes(row.pid)) ? true : undefined;
    });
    expect(await listening()).toEqual(oneEach);

    const { api_key: key } = await createMerchant(databaseUrl, 'Settle Co');
    const onramp = await createBalanceOnramp(stack.url, key);
    const started = Date.now();
    const deposit = await sandboxTransfer(
      stack.url,
      key,
      onramp.virtual_account.account_number,
      '25000',
    );
    await eventually(async () => {
      const read = await request(stack.url, 'GET', `/v1/deposits/${deposit.deposit_id}`, { key });
      return read.body.status === 'SETTLED' ? true : undefined;
    }, WITHIN_MS);
    expect(Date.now() - started).toBeLessThan(WITHIN_MS);
  });
});
