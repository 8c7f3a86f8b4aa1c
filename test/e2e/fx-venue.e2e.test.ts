import { createTestDatabase } from '../support/db';
import {
  baseEnv,
  createMerchant,
  eventually,
  startRunner,
  startStack,
  type RunningProcess,
  type Stack,
} from '../support/stack';
import { request } from '../support/http';
import { BushaStandIn } from '../support/fx-venue-stand-in';
import { balanceOnramp, freshRate, sandboxTransfer } from '../support/onramps';
import { sql } from '../support/sql';

const SECRET = 'ZTJlLWtleTplMmUtc2VjcmV0LWZvci1idXNoYQ==';

/**
 * Gateway and job runner with FX_VENUE=busha pointed at the Busha stand-in: deposits settle
 * through its quotes and transfers; a runner killed (SIGKILL) while its execute is out, before
 * it records the transfer, leaves the order to the next runner, which finds the transfer at
 * the venue: the deposit converts once and settles with the venue's fill. The venue's
 * temporary refusals FLAG a deposit, its permanent ones FAIL it.
 */
describe('FX venue: Busha through the processes', () => {
  let standIn: BushaStandIn;
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  let env: Record<string, string>;
  const extra: RunningProcess[] = [];

  beforeAll(async () => {
    standIn = await new BushaStandIn(SECRET).start();
    databaseUrl = await createTestDatabase();
    env = {
      RATE_LIMIT_PER_MINUTE: '100000',
      FX_VENUE: 'busha',
      BUSHA_SECRET_KEY: SECRET,
      BUSHA_BASE_URL: standIn.url,
      // An order's lease is twice this: what a new runner waits for after a kill.
      BUSHA_TIMEOUT_MS: '3000',
      DEPOSIT_REDRIVE_SECONDS: '2',
    };
    stack = await startStack(databaseUrl, { env });
    ({ api_key: key } = await createMerchant(databaseUrl, 'Busha Co'));
  });
  afterAll(async () => {
    await Promise.all(extra.map((p) => p.stop()));
    await stack?.stop();
    await standIn?.stop();
  });

  async function deposit(amountNgn: string): Promise<string> {
    const rate = await freshRate(stack.url, key);
    const created = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      body: balanceOnramp(rate.rate_id),
    });
    expect(created.status).toBe(201);
    const account = created.body.virtual_account.account_number;
    return (await sandboxTransfer(stack.url, key, account, amountNgn)).deposit_id;
  }
  const depositUntil = (id: string, status: string, timeoutMs = 30_000) =>
    eventually(async () => {
      const d = (await request(stack.url, 'GET', `/v1/deposits/${id}`, { key })).body;
      return d.status === status ? d : undefined;
    }, timeoutMs);
  const orderOf = async (depositId: string) => {
    const [row] = await sql<{
      status: string;
      quote_ids: string[];
      transfer_id: string | null;
      usd_bought: string | null;
    }>(
      databaseUrl,
      `select o.status, o.quote_ids, o.transfer_id, o.usd_bought::text as usd_bought
         from fx_venue_orders o join deposits d on d.fx_order_id = o.client_order_id
        where d.id = $1`,
      [depositId],
    );
    return row;
  };
  /** The deposit's conversion in the ledger: its count and the operator's FX revenue (spread). */
  const conversionOf = async (depositId: string) => {
    const [row] = await sql<{ conversions: number; revenue: string }>(
      databaseUrl,
      `select count(distinct t.id)::int as conversions,
              coalesce(sum(case when p.account_id <> 'operator:usd_fx_revenue' then 0
                                when p.direction = 'CREDIT' then p.amount else -p.amount end), 0)::text
                as revenue
         from ledger_transactions t join ledger_postings p on p.transaction_id = t.id
        where t.deposit_id = $1 and t.kind = 'deposit_fx'`,
      [depositId],
    );
    return { conversions: row.conversions, revenue: Number(row.revenue).toFixed(6) };
  };

  it('settles a deposit with the fill of a Busha transfer', async () => {
    const id = await deposit('15000');
    const settled = await depositUntil(id, 'SETTLED');
    const order = await orderOf(id);
    expect(order).toMatchObject({ status: 'FILLED', usd_bought: '10.000000' });
    const [transfer] = standIn.executionsOf(order.quote_ids);
    expect(standIn.executionsOf(order.quote_ids)).toHaveLength(1);
    expect(transfer).toMatchObject({
      id: order.transfer_id,
      source_currency: 'NGN',
      source_amount: '15000.00',
      target_currency: 'USDT',
      target_amount: '10',
    });
    // 15,000 NGN bought 10 USDT at the venue; the merchant is owed amount_asset, the rest is
    // the operator's spread.
    expect(await conversionOf(id)).toEqual({
      conversions: 1,
      revenue: (10 - Number(settled.amount_asset)).toFixed(6),
    });
  });

  it('the runner killed (SIGKILL) between placing and recording an order converts once', async () => {
    const held = standIn.holdNextExecute();
    const id = await deposit('22500.50');
    await held.arrived;
    // The venue has executed the transfer; the runner waits for the answer: kill it now.
    await stack.runners[0].stop('SIGKILL');
    const orphaned = await orderOf(id);
    expect(orphaned).toMatchObject({ status: 'EXECUTING', transfer_id: null });
    expect(orphaned.quote_ids).toHaveLength(1);
    expect(standIn.executionsOf(orphaned.quote_ids)).toHaveLength(1);

    const killedAt = Date.now();
    extra.push(await startRunner(baseEnv(databaseUrl, env)));
    const settled = await depositUntil(id, 'SETTLED', 60_000);
    held.release();
    // The new runner waited for the dead one's lease (2 x 3 s), not much longer.
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(5000);

    const order = await orderOf(id);
    const executed = standIn.executionsOf(order.quote_ids);
    expect(executed).toHaveLength(1);
    expect(order).toMatchObject({
      status: 'FILLED',
      quote_ids: orphaned.quote_ids,
      transfer_id: executed[0].id,
      usd_bought: '15.000333',
    });
    // 22,500.50 / 1,500 = 15.00033333 at the venue, rounded down to 6 decimals.
    expect(executed[0].target_amount).toBe('15.00033333');
    expect(await conversionOf(id)).toEqual({
      conversions: 1,
      revenue: (15.000333 - Number(settled.amount_asset)).toFixed(6),
    });
  }, 120_000);

  it('a temporary refusal at the venue FLAGs the deposit; a permanent one FAILs it', async () => {
    standIn.failNext('quote', 503, 1, 'Service is under maintenance');
    const temporary = await deposit('3000');
    expect(await depositUntil(temporary, 'FLAGGED')).toMatchObject({
      flag_reason: 'FX execution failed temporarily',
    });
    standIn.refuseQuotes = 'account restricted from trading';
    try {
      const permanent = await deposit('4000');
      expect(await depositUntil(permanent, 'FAILED')).toMatchObject({
        failure_reason: 'FX execution failed',
      });
      expect(standIn.executionsOf((await orderOf(permanent)).quote_ids)).toEqual([]);
    } finally {
      standIn.refuseQuotes = undefined;
    }
    expect(standIn.executionsOf((await orderOf(temporary)).quote_ids)).toEqual([]);
  });
});
