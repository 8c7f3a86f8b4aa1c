import { createTestDatabase } from '../support/db';
import {
  baseEnv,
  createMerchant,
  onrampCli,
  startRunner,
  startStack,
  type RunningProcess,
  type Stack,
} from '../support/stack';
import { request } from '../support/http';
import { balanceOnramp, freshRate } from '../support/onramps';
import { sql, untilAllSettled } from '../support/sql';

/**
 * The job runner is killed with SIGKILL while 200 deposits stream in and settle, then started
 * again: every deposit must end SETTLED exactly once, and the ledger must hold.
 */
describe('job runner killed during 200 settlements', () => {
  const env = { RATE_LIMIT_PER_MINUTE: '100000', DEPOSIT_REDRIVE_SECONDS: '2' };
  let stack: Stack;
  let databaseUrl: string;
  const extra: RunningProcess[] = [];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { env });
  });
  afterAll(async () => {
    await Promise.all(extra.map((p) => p.stop()));
    await stack?.stop();
  });

  // Generous: on a 2-core CI machine it shares the CPU with the other e2e worker.
  it('settles every deposit exactly once and passes ledger check', async () => {
    const { api_key: key } = await createMerchant(databaseUrl, 'Crash Co');
    const rate = await freshRate(stack.url, key);
    const created = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      body: balanceOnramp(rate.rate_id),
    });
    const account = created.body.virtual_account.account_number;

    const ids: string[] = [];
    const send = async (i: number) => {
      const response = await request(stack.url, 'POST', '/v1/sandbox/deposits', {
        key,
        body: {
          account_number: account,
          amount_ngn: `${3000 + i}.25`,
          bank_reference: `CRASH-${i}`,
        },
      });
      expect(response.status).toBe(201);
      ids.push(response.body.deposit_id);
    };
    let runner: RunningProcess = stack.runners[0];
    for (let batch = 0; batch < 10; batch += 1) {
      await Promise.all(Array.from({ length: 20 }, (_, j) => send(batch * 20 + j)));
      if (batch === 3 || batch === 7) {
        // Mid-stream: some deposits settled, some pending, some jobs running.
        await runner.stop('SIGKILL');
        runner = await startRunner(baseEnv(databaseUrl, env));
        extra.push(runner);
      }
    }
    expect(new Set(ids).size).toBe(200);

    await untilAllSettled(databaseUrl);
    const perDeposit = await sql<{ settled_events: number; fx: number }>(
      databaseUrl,
      `select (select count(*)::int from events e where e.deposit_id = d.id and e.kind = 'deposit.settled') as settled_events,
              (select count(*)::int from ledger_transactions t where t.deposit_id = d.id and t.kind = 'deposit_fx') as fx
         from deposits d`,
    );
    expect(perDeposit).toHaveLength(200);
    expect(perDeposit.every((r) => r.settled_events === 1 && r.fx === 1)).toBe(true);

    const [{ total }] = await sql<{ total: string }>(
      databaseUrl,
      'select sum(amount_asset)::numeric(30, 6)::text as total from deposits',
    );
    const balance = await request(stack.url, 'GET', '/v1/merchant/balance', { key });
    expect(balance.body.balances.usd_available).toBe(total);

    const report = await onrampCli(databaseUrl, ['ledger', 'check']);
    expect(String(report)).toContain('"ok": true');
  }, 120_000);
});
