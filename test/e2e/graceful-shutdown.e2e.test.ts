import { createTestDatabase } from '../support/db';
import { request } from '../support/http';
import { balanceOnramp, createOnramp, freshRate } from '../support/onramps';
import { sql } from '../support/sql';
import {
  baseEnv,
  createMerchant,
  eventually,
  startGateway,
  startRunner,
  startStack,
  type Gateway,
  type RunningProcess,
  type Stack,
} from '../support/stack';

const BURST = 100;

/**
 * SIGTERM in the middle of a burst of deposits: the process finishes what it is doing and
 * exits 0, and nothing is lost: every transfer ends as exactly one SETTLED deposit with one
 * `deposit.settled` event once the replacement process is up.
 */
describe('graceful shutdown', () => {
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  const extra: RunningProcess[] = [];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    key = (await createMerchant(databaseUrl, 'Shutdown Co')).api_key;
  });
  afterAll(async () => {
    await Promise.all(extra.map((p) => p.stop()));
    await stack?.stop();
  });

  const env = () => baseEnv(databaseUrl, { RATE_LIMIT_PER_MINUTE: '100000' });

  async function newOnramp(url: string) {
    await freshRate(url, key); // the first rate is published
    const { rate_id: _unused, ...permanent } = balanceOnramp('', 'PERMANENT');
    return (await createOnramp(url, key, permanent)).virtual_account.account_number;
  }

  /** One simulated transfer; `null` when the gateway refused the connection. */
  async function transfer(url: string, account: string, reference: string) {
    try {
      return await request(url, 'POST', '/v1/sandbox/deposits', {
        key,
        body: { account_number: account, amount_ngn: '15000', bank_reference: reference },
      });
    } catch {
      return null;
    }
  }

  /** Sends the burst 10 at a time; calls `midway` once 30 answers are in. */
  async function burst(
    url: () => string,
    account: string,
    prefix: string,
    midway: () => void,
  ): Promise<Map<string, number | null>> {
    const outcomes = new Map<string, number | null>();
    const references = Array.from({ length: BURST }, (_, i) => `${prefix}-${i}`);
    let answered = 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < references.length) {
          const reference = references[next++];
          const response = await transfer(url(), account, reference);
          if (response?.status === 503) {
            // A request that reached a closing gateway: told to retry, in the error shape.
            expect(response.body).toEqual({
              error: { code: 'service_unavailable', message: expect.any(String) },
            });
            expect(response.headers.get('retry-after')).toBe('1');
          }
          outcomes.set(reference, response?.status ?? null);
          answered += 1;
          if (answered === 30) midway();
        }
      }),
    );
    return outcomes;
  }

  async function settledOnce(prefix: string) {
    await eventually(
      async () => {
        const [row] = await sql<{ settled: string; total: string }>(
          databaseUrl,
          `select count(*) filter (where status = 'SETTLED') as settled, count(*) as total
             from deposits where bank_reference like $1`,
          [`${prefix}-%`],
        );
        return Number(row.settled) === BURST ? row : undefined;
      },
      60_000,
      250,
    );
    const [counts] = await sql<{ deposits: string; events: string; refs: string }>(
      databaseUrl,
      `select count(distinct d.id) as deposits, count(distinct d.bank_reference) as refs,
              count(e.id) as events
         from deposits d join events e on e.deposit_id = d.id and e.kind = 'deposit.settled'
        where d.bank_reference like $1`,
      [`${prefix}-%`],
    );
    expect(counts).toEqual({ deposits: String(BURST), refs: String(BURST), events: String(BURST) });
  }

  it('a job runner told to stop mid-burst finishes its jobs and exits 0; a new runner settles the rest', async () => {
    const account = await newOnramp(stack.url);
    const runner = stack.runners[0];
    let stopped: Promise<void> | undefined;
    let asked = 0;
    let exited = 0;
    const outcomes = await burst(
      () => stack.url,
      account,
      'RUNNER',
      () => {
        asked = Date.now();
        runner.child.once('exit', () => (exited = Date.now()));
        stopped = runner.stop('SIGTERM');
      },
    );
    expect([...outcomes.values()].every((status) => status === 201)).toBe(true);
    await stopped;
    expect(runner.child.exitCode).toBe(0);
    // Its running jobs take milliseconds: the drain must not sit out its timeout.
    expect(exited - asked).toBeLessThan(10_000);
    const logs = runner.logs.join('\n');
    expect(logs).toMatch(/"event":"stopped"/);
    // Nothing it had started was cut off by the shutdown.
    expect(logs).not.toMatch(/"msg":"job failed"/);
    const replacement = await startRunner(env());
    extra.push(replacement);
    await settledOnce('RUNNER');
  });

  it('a gateway told to stop mid-burst answers what it accepted; the rest succeed on another gateway', async () => {
    const first: Gateway = await startGateway(env());
    extra.push(first);
    const account = await newOnramp(first.url);
    let target = first.url;
    let second: Gateway | undefined;
    let firstStopped: Promise<void> | undefined;
    const outcomes = await burst(
      () => target,
      account,
      'GATEWAY',
      () => {
        firstStopped = first.stop('SIGTERM');
        // The load balancer's part: new requests go to the other gateway once it is up.
        void startGateway(env()).then((g) => {
          second = g;
          extra.push(g);
          target = g.url;
        });
      },
    );
    await eventually(async () => (second ? true : undefined), 30_000);
    const stopStarted = Date.now();
    await firstStopped;
    expect(first.child.exitCode).toBe(0);
    expect(Date.now() - stopStarted).toBeLessThan(15_000);
    expect(first.logs.join('\n')).toMatch(/"event":"stopped"/);
    const statuses = [...outcomes.values()];
    // Accepted (201), refused at the door (no connection) or told to retry (503) — never a
    // half-answered request or another 5xx.
    for (const status of statuses) expect([201, 503, null]).toContain(status);
    const retry = [...outcomes].filter(([, status]) => status !== 201).map(([ref]) => ref);
    for (const reference of retry) {
      const response = await transfer(second!.url, account, reference);
      // 201 if the first gateway never took it, 200 if it did and its answer was lost.
      expect([200, 201]).toContain(response?.status);
    }
    await settledOnce('GATEWAY');
  });
});
