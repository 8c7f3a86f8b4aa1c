import { createTestDatabase } from '../support/db';
import {
  baseEnv,
  createMerchant,
  eventually,
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
 * The job runner is killed with SIGKILL in the middle of a settlement batch (its FX orders
 * placed, the fills not yet applied) when about half of 200 deposits are settled; a new
 * runner takes the orphaned batch once its claim expires, with the same client order ids.
 * Every deposit must end SETTLED exactly once, and the ledger must hold.
 */
describe('job runner killed in the middle of a settlement batch', () => {
  const env = {
    RATE_LIMIT_PER_MINUTE: '100000',
    DEPOSIT_REDRIVE_SECONDS: '2',
    SETTLEMENT_BATCH_SIZE: '10',
    // Each batch waits this long at the venue: the window the runner is killed in.
    SANDBOX_FX_LATENCY_MS: '500',
  };
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

  /** Deposits settled, and those held by a batch whose fills are not applied yet. */
  const progress = async () => {
    const [row] = await sql<{ settled: number; held: number }>(
      databaseUrl,
      `select count(*) filter (where status = 'SETTLED')::int as settled,
              count(*) filter (where status = 'PENDING_FX' and settle_claim is not null)::int as held
         from deposits`,
    );
    return row;
  };

  it('settles every deposit exactly once, the orphaned batch with its original order ids', async () => {
    const { api_key: key } = await createMerchant(databaseUrl, 'Batch Crash Co');
    const rate = await freshRate(stack.url, key);
    const created = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      body: balanceOnramp(rate.rate_id),
    });
    const account = created.body.virtual_account.account_number;

    const send = async (i: number) => {
      const response = await request(stack.url, 'POST', '/v1/sandbox/deposits', {
        key,
        body: {
          account_number: account,
          amount_ngn: `${3000 + i}.25`,
          bank_reference: `BATCH-CRASH-${i}`,
        },
      });
      expect(response.status).toBe(201);
    };
    const sending = (async () => {
      for (let batch = 0; batch < 10; batch += 1) {
        await Promise.all(Array.from({ length: 20 }, (_, j) => send(batch * 20 + j)));
      }
    })();

    // About half settled and a batch in flight (claimed, at the venue): kill the runner now.
    await eventually(
      async () => {
        const { settled, held } = await progress();
        return settled >= 90 && held > 0 ? true : undefined;
      },
      60_000,
      20,
    );
    await stack.runners[0].stop('SIGKILL');
    await sending;
    const orphaned = await sql<{ id: string; fx_order_id: string }>(
      databaseUrl,
      `select id, fx_order_id from deposits
        where status = 'PENDING_FX' and settle_claim is not null`,
    );
    const { settled: settledAtKill } = await progress();
    expect(orphaned.length).toBeGreaterThan(0);
    expect(orphaned.every((d) => d.fx_order_id === d.id)).toBe(true);
    expect(settledAtKill).toBeGreaterThanOrEqual(90);
    expect(settledAtKill).toBeLessThan(200);

    extra.push(await startRunner(baseEnv(databaseUrl, env)));
    await untilAllSettled(databaseUrl);

    const perDeposit = await sql<{ id: string; settled_events: number; fx: number; order: string }>(
      databaseUrl,
      `select d.id, d.fx_order_id as order,
              (select count(*)::int from events e where e.deposit_id = d.id and e.kind = 'deposit.settled') as settled_events,
              (select count(*)::int from ledger_transactions t where t.deposit_id = d.id and t.kind = 'deposit_fx') as fx
         from deposits d`,
    );
    expect(perDeposit).toHaveLength(200);
    expect(perDeposit.filter((r) => r.settled_events !== 1 || r.fx !== 1)).toEqual([]);
    // The orphaned batch was placed again under the same client order ids.
    const orderOf = new Map(perDeposit.map((r) => [r.id, r.order]));
    expect(orphaned.every((d) => orderOf.get(d.id) === d.fx_order_id)).toBe(true);
    // No job row per deposit: settlement is one recurring job.
    const [{ jobs }] = await sql<{ jobs: number }>(
      databaseUrl,
      "select count(*)::int as jobs from agenda_jobs where name like 'settle%'",
    );
    expect(jobs).toBeLessThanOrEqual(1);

    const [{ total }] = await sql<{ total: string }>(
      databaseUrl,
      'select sum(amount_asset)::numeric(30, 6)::text as total from deposits',
    );
    const balance = await request(stack.url, 'GET', '/v1/merchant/balance', { key });
    expect(balance.body.balances.usd_available).toBe(total);

    const report = await onrampCli(databaseUrl, ['ledger', 'check']);
    expect(String(report)).toContain('"ok": true');
  }, 180_000);
});
