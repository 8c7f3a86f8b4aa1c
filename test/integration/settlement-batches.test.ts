import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { dec } from '../../src/domain/money';
import { SandboxFxVenue } from '../../src/sandbox/sandbox-fx-venue';
import {
  placeOrders,
  type FxOrder,
  type FxOutcome,
  type FxVenue,
} from '../../src/adapters/fx/fx-venue';
import { claimPending } from '../../src/deposits/settlement-claim';
import { SettlementDrain } from '../../src/deposits/settlement-drain';
import { checkLedger } from '../../src/reconciliation/ledger-check';
import type { SettledDeposit } from '../../src/deposits/settlement-observer';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';

/** Every order placed, and what the venue answered (crash and race tests compare them). */
interface Placed {
  order: FxOrder;
  outcome: FxOutcome;
}

const CLAIM_SECONDS = 5;
const quiet = { info: () => undefined, warn: () => undefined };

describe('settlement in batches (real PostgreSQL)', () => {
  let orm: MikroORM;
  let clock: ManualClock;
  let placed: Placed[];
  /** Replaces the sandbox venue for a test (a gate, an outage); null: the sandbox venue. */
  let venueOverride: ((em: EntityManager, orders: FxOrder[]) => Promise<FxOutcome[]>) | null;
  let settledReports: SettledDeposit[];
  let kit: ReturnType<typeof depositKit>;

  /** One job runner's services: its own settlement service over the shared database. */
  const runnerServices = (): Services =>
    createServices(
      loadConfig({ SETTLEMENT_BATCH_SIZE: '7', DEPOSIT_REDRIVE_SECONDS: String(CLAIM_SECONDS) }),
      clock,
      {
        fxVenue: (em): FxVenue => {
          const sandbox = new SandboxFxVenue(em, { latencyMs: 5 });
          const executeAll = async (orders: FxOrder[]) => {
            const outcomes = venueOverride
              ? await venueOverride(em, orders)
              : await sandbox.executeAll(orders);
            orders.forEach((order, i) => placed.push({ order, outcome: outcomes[i] }));
            return outcomes;
          };
          return { name: 'recording', execute: sandbox.execute.bind(sandbox), executeAll };
        },
        onDepositSettled: (settled) => settledReports.push(settled),
      },
    );
  let services: Services;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock('2026-08-01T09:00:00Z');
    services = runnerServices();
    kit = depositKit(orm, services, clock);
  });
  beforeEach(() => {
    placed = [];
    venueOverride = null;
    settledReports = [];
  });
  afterAll(() => orm.close());

  const query = <T>(sql: string, params: unknown[] = []) =>
    orm.em.fork().getConnection().execute<T[]>(sql, params);
  const fxTransactions = async (ids: string[]) =>
    query<{ deposit_id: string; n: number }>(
      `select deposit_id, count(*)::int as n from ledger_transactions
        where kind = 'deposit_fx' and deposit_id in (${ids.map(() => '?').join(', ')})
        group by deposit_id`,
      ids,
    );
  const balanceOf = async (merchantId: string) =>
    (await services.ledger.balance(orm.em.fork(), merchantId, new Date(0))).usdAvailable;
  const ledgerIsGreen = async () =>
    expect(await checkLedger((sql, params) => orm.em.getConnection().execute(sql, params))).toEqual(
      [],
    );

  it('two drains racing on the same 50 deposits settle each exactly once', async () => {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant);
    const deposits = [];
    for (let i = 0; i < 50; i += 1) {
      deposits.push(await kit.transfer(onramp.accountNumber, `${15000 + i}.50`));
    }
    const ids = deposits.map((d) => d.id);
    // Two runners: each its own services and drain, woken several times at once (NOTIFYs).
    const drains = [runnerServices(), runnerServices()].map(
      (s) => new SettlementDrain(s.settlement, () => orm.em.fork(), quiet, 7),
    );
    await Promise.all(drains.flatMap((drain) => [drain.wake(), drain.wake(), drain.wake()]));

    const rows = await query<{ id: string; status: string; n: number }>(
      `select d.id, d.status, (select count(*)::int from events e
          where e.deposit_id = d.id and e.kind = 'deposit.settled') as n
         from deposits d where d.merchant_id = ?`,
      [merchant],
    );
    expect(rows).toHaveLength(50);
    expect(rows.every((r) => r.status === 'SETTLED' && r.n === 1)).toBe(true);
    const fx = await fxTransactions(ids);
    expect(fx).toHaveLength(50);
    expect(fx.every((r) => r.n === 1)).toBe(true);
    // Each settlement reported once, by whichever runner applied it.
    const reported = settledReports.map((r) => r.depositId).filter((id) => ids.includes(id));
    expect(reported.sort()).toEqual([...ids].sort());
    // Each order placed once: no deposit was claimed by both drains.
    const orderIds = placed.map((p) => p.order.clientOrderId);
    expect(orderIds.sort()).toEqual([...ids].sort());
    const sum = deposits.reduce((acc, d) => acc.plus(d.amountAsset!), dec(0));
    expect(await balanceOf(merchant)).toBe(sum.toFixed(6));
    await ledgerIsGreen();
  });

  it('a crash after the venue call and before apply: the next drain settles once with the same client order id', async () => {
    const merchant = await kit.merchant();
    await kit.rate('USD');
    const onramp = await kit.onramp(merchant, 'PERMANENT');
    const deposit = await kit.transfer(onramp.accountNumber, '15000');
    // The dead runner: claimed and placed the order, never applied the fill.
    const now = clock.now();
    const claimed = await claimPending(orm.em.fork(), {
      claim: 'stl_dead_runner',
      now,
      expiresAt: new Date(now.getTime() + CLAIM_SECONDS * 1000),
      limit: 10,
      ids: [deposit.id],
    });
    expect(claimed).toHaveLength(1);
    expect(claimed[0].fxOrderId).toBe(deposit.id);
    const [first] = await placeOrders(new SandboxFxVenue(orm.em.fork()), [
      {
        clientOrderId: claimed[0].fxOrderId,
        merchantId: merchant,
        amountNgn: dec(claimed[0].amountNgn),
        marketRateNgnPerUsd: dec(claimed[0].marketRate!),
      },
    ]);
    // While the claim holds, no drain takes the deposit.
    expect((await services.settlement.settleBatch(orm.em.fork())).claimed).toBe(0);
    expect((await kit.reload(deposit.id)).status).toBe('PENDING_FX');

    // A newer rate meanwhile: the deposit stays pinned to the rate its order was placed at.
    await kit.rate('USD');
    clock.advance((CLAIM_SECONDS + 1) * 1000);
    const result = await services.settlement.settleBatch(orm.em.fork());
    expect(result.outcomes.get(deposit.id)).toBe('SETTLED');
    expect(placed).toHaveLength(1);
    expect(placed[0].order.clientOrderId).toBe(deposit.id);
    expect(placed[0].outcome).toEqual(first);
    const settled = await kit.reload(deposit.id);
    expect(settled).toMatchObject({ status: 'SETTLED', rateId: claimed[0].rateId });
    expect(await fxTransactions([deposit.id])).toEqual([{ deposit_id: deposit.id, n: 1 }]);
    expect(await kit.events(deposit.id)).toEqual([
      { kind: 'deposit.created', status: 'PENDING_FX' },
      { kind: 'deposit.settled', status: 'SETTLED' },
    ]);
    expect(await services.settlement.settle(orm.em.fork(), deposit.id)).toBe('skipped');
    expect(await balanceOf(merchant)).toBe(settled.amountAsset);
    await ledgerIsGreen();
  });

  it('a run whose claim expired while it waited on the venue does not apply: the new holder does, once', async () => {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant);
    const deposit = await kit.transfer(onramp.accountNumber, '15000');
    // The slow run's venue call waits until the test lets it answer.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    venueOverride = async (em, orders) => {
      venueOverride = null;
      await gate;
      return new SandboxFxVenue(em).executeAll(orders);
    };
    const slow = services.settlement.settleBatch(orm.em.fork());
    while (placed.length === 0 && venueOverride !== null)
      await new Promise((r) => setTimeout(r, 5));

    clock.advance((CLAIM_SECONDS + 1) * 1000);
    const fresh = await runnerServices().settlement.settleBatch(orm.em.fork());
    expect(fresh.outcomes.get(deposit.id)).toBe('SETTLED');
    release();
    const late = await slow;
    expect(late.claimed).toBe(1);
    expect(late.outcomes.size).toBe(0);
    expect(late.unapplied).toEqual([deposit.id]);

    expect(placed.map((p) => p.order.clientOrderId)).toEqual([deposit.id, deposit.id]);
    expect(await fxTransactions([deposit.id])).toEqual([{ deposit_id: deposit.id, n: 1 }]);
    expect(await balanceOf(merchant)).toBe('9.949999');
    expect(settledReports.map((r) => r.depositId)).toEqual([deposit.id]);
  });

  it('no lock is held while the orders are at the venue; a bank reversal meanwhile waits for the fill, then reverses the settled deposit', async () => {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant);
    const deposit = await kit.transfer(onramp.accountNumber, '15000', `REV-AT-VENUE-${merchant}`);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    venueOverride = async (em, orders) => {
      venueOverride = null;
      await gate;
      return new SandboxFxVenue(em).executeAll(orders);
    };
    const atVenue = services.settlement.settleBatch(orm.em.fork(), { ids: [deposit.id] });
    while (venueOverride !== null) await new Promise((r) => setTimeout(r, 5));

    // With the order out, the row is free: another transaction locks it without waiting.
    const free = orm.em.fork();
    await free.transactional((tx) =>
      tx
        .getConnection()
        .execute(
          'select id from deposits where id = ? for update nowait',
          [deposit.id],
          'all',
          tx.getTransactionContext(),
        ),
    );
    // The NGN is sold once the order is out: the reversal waits for the batch's outcome.
    let reversalDone = false;
    const reversal = services.reversals
      .reverse(orm.em.fork(), `REV-AT-VENUE-${merchant}`)
      .finally(() => (reversalDone = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(reversalDone).toBe(false);
    release();
    const applied = await atVenue;
    expect(applied.outcomes.get(deposit.id)).toBe('SETTLED');
    expect((await reversal).deposit).toMatchObject({ status: 'REVERSED' });
    expect(await kit.events(deposit.id)).toEqual([
      { kind: 'deposit.created', status: 'PENDING_FX' },
      { kind: 'deposit.settled', status: 'SETTLED' },
      { kind: 'deposit.reversed', status: 'REVERSED' },
    ]);
    expect(await fxTransactions([deposit.id])).toHaveLength(1);
    await ledgerIsGreen();
  });

  it('FX failures in one batch: temporary FLAGGED, permanent FAILED, the rest SETTLED; limits released', async () => {
    const [temporary, permanent, fine] = [
      await kit.merchant('Temp'),
      await kit.merchant('Perm'),
      await kit.merchant('Fine'),
    ];
    await services.sandbox.set(orm.em.fork(), temporary, { fxFailure: 'TEMPORARY' });
    await services.sandbox.set(orm.em.fork(), permanent, { fxFailure: 'PERMANENT' });
    const byMerchant = new Map<string, string[]>();
    for (const merchant of [temporary, permanent, fine]) {
      const onramp = await kit.onramp(merchant);
      const ids = [];
      for (let i = 0; i < 2; i += 1)
        ids.push((await kit.transfer(onramp.accountNumber, '15000')).id);
      byMerchant.set(merchant, ids);
    }
    const all = [...byMerchant.values()].flat();
    const result = await services.settlement.settleBatch(orm.em.fork(), { ids: all });
    expect(result.claimed).toBe(6);
    const statusOf = (id: string) => result.outcomes.get(id);
    expect(byMerchant.get(temporary)!.map(statusOf)).toEqual(['FLAGGED', 'FLAGGED']);
    expect(byMerchant.get(permanent)!.map(statusOf)).toEqual(['FAILED', 'FAILED']);
    expect(byMerchant.get(fine)!.map(statusOf)).toEqual(['SETTLED', 'SETTLED']);
    expect(await kit.reload(byMerchant.get(temporary)![0])).toMatchObject({
      flagReason: 'FX execution failed temporarily',
      fxExecutedAt: null,
    });
    expect(await kit.reload(byMerchant.get(permanent)![0])).toMatchObject({
      failureReason: 'FX execution failed',
    });
    expect(await kit.events(byMerchant.get(permanent)![1])).toEqual([
      { kind: 'deposit.created', status: 'PENDING_FX' },
      { kind: 'deposit.failed', status: 'FAILED' },
    ]);
    // FLAGGED and FAILED deposits stop counting against the day's limits; SETTLED ones still do.
    const volume = await query<{ scope: string; usd: string }>(
      'select scope, usd::text as usd from deposit_daily_volume where scope in (?, ?, ?)',
      [temporary, permanent, fine],
    );
    const usdOf = (scope: string) => dec(volume.find((v) => v.scope === scope)!.usd).toFixed(6);
    expect([usdOf(temporary), usdOf(permanent), usdOf(fine)]).toEqual([
      '0.000000',
      '0.000000',
      '19.899998',
    ]);
    expect(await balanceOf(fine)).toBe('19.899998');
    expect(await balanceOf(temporary)).toBe('0.000000');
    await ledgerIsGreen();
  });

  it('a venue that cannot be reached leaves the deposits claimed; they settle once the claim expires', async () => {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant);
    const deposit = await kit.transfer(onramp.accountNumber, '15000');
    venueOverride = async (_em, orders) =>
      orders.map(() => ({ error: new Error('connect ECONNREFUSED venue') }));
    const down = await services.settlement.settleBatch(orm.em.fork(), { ids: [deposit.id] });
    expect(down.deferred.map((d) => d.depositId)).toEqual([deposit.id]);
    expect((await kit.reload(deposit.id)).status).toBe('PENDING_FX');
    await expect(services.settlement.settle(orm.em.fork(), deposit.id)).resolves.toBe('skipped');

    venueOverride = null;
    clock.advance((CLAIM_SECONDS + 1) * 1000);
    expect(await services.settlement.settle(orm.em.fork(), deposit.id)).toBe('SETTLED');
    expect(await fxTransactions([deposit.id])).toEqual([{ deposit_id: deposit.id, n: 1 }]);
  });
});
