import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { ErrorCode } from '../../src/domain/errors';
import { dec } from '../../src/domain/money';
import { merchantAccount, OPERATOR, transfer } from '../../src/domain/ledger';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';

describe('deposit settlement and reversals (real PostgreSQL)', () => {
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock('2026-08-01T09:00:00Z');
    services = createServices(loadConfig({}), clock);
    kit = depositKit(orm, services, clock);
  });
  afterAll(() => orm.close());

  const settle = (id: string) => services.settlement.settle(orm.em.fork(), id);
  const balanceOf = async (merchantId: string) =>
    services.ledger.balance(orm.em.fork(), merchantId, new Date(0));

  it('settles a MERCHANT_BALANCE deposit once: balance credited with amount_asset, deposit.settled', async () => {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant);
    const deposit = await kit.transfer(onramp.accountNumber, '15000');
    expect(await settle(deposit.id)).toBe('SETTLED');
    expect(await settle(deposit.id)).toBe('skipped');
    const settled = await kit.reload(deposit.id);
    expect(settled).toMatchObject({ status: 'SETTLED', amountAsset: '9.949999' });
    expect(settled.settledAt).toEqual(clock.now());
    const balance = await balanceOf(merchant);
    expect(balance.usdAvailable).toBe('9.949999');
    // updated_at is the last posting to the balance, not the `since` floor.
    expect(balance.updatedAt).toEqual(clock.now());
    expect(await kit.events(deposit.id)).toEqual([
      { kind: 'deposit.created', status: 'PENDING_FX' },
      { kind: 'deposit.settled', status: 'SETTLED' },
    ]);
  });

  it('settles each deposit exactly once when many settlements race', async () => {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant);
    const deposits = [];
    for (let i = 0; i < 10; i += 1)
      deposits.push(await kit.transfer(onramp.accountNumber, '30000'));
    const outcomes = await Promise.all(
      deposits.flatMap((d) => [settle(d.id), settle(d.id), settle(d.id)]),
    );
    expect(outcomes.filter((o) => o === 'SETTLED')).toHaveLength(10);
    const [{ count }] = await orm.em
      .fork()
      .getConnection()
      .execute(
        "select count(*)::int as count from ledger_transactions t join deposits d on d.id = t.deposit_id where d.merchant_id = ? and t.kind = 'deposit_fx'",
        [merchant],
      );
    expect(count).toBe(10);
    const sum = deposits.reduce((acc, d) => acc.plus(d.amountAsset!), dec(0));
    expect((await balanceOf(merchant)).usdAvailable).toBe(sum.toFixed(6));
  });

  it('50 concurrent 900-USD deposits with 10,000 USD of daily room: 11 SETTLED, 39 FLAGGED', async () => {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant);
    // 1,356,784 NGN x 0.000663333333333 = 900.000053 USD
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        services.ingestion.receive(orm.em.fork(), {
          accountNumber: onramp.accountNumber,
          amountNgn: '1356784',
          bankReference: `NINE-HUNDRED-${i}`,
        }),
      ),
    );
    const ids = outcomes.map((o) => (o.kind === 'deposit' ? o.deposit.id : ''));
    await Promise.all(ids.map((id) => settle(id)));
    const rows = await orm.em
      .fork()
      .getConnection()
      .execute<Array<{ status: string; n: number; reason: string | null }>>(
        'select status, flag_reason as reason, count(*)::int as n from deposits where merchant_id = ? group by status, flag_reason',
        [merchant],
      );
    expect(rows.sort((a, b) => a.status.localeCompare(b.status))).toEqual([
      { status: 'FLAGGED', reason: 'Exceeds the merchant daily limit of 10,000 USD', n: 39 },
      { status: 'SETTLED', reason: null, n: 11 },
    ]);
  });

  it('a temporary FX failure FLAGs the deposit and moves its NGN to suspense; a permanent one FAILs it', async () => {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant);
    await services.sandbox.set(orm.em.fork(), merchant, { fxFailure: 'TEMPORARY' });
    const temporary = await kit.transfer(onramp.accountNumber, '15000');
    expect(await settle(temporary.id)).toBe('FLAGGED');
    expect(await kit.reload(temporary.id)).toMatchObject({
      status: 'FLAGGED',
      flagReason: 'FX execution failed temporarily',
      amountAsset: '9.949999',
    });
    await services.sandbox.set(orm.em.fork(), merchant, { fxFailure: 'PERMANENT' });
    const permanent = await kit.transfer(onramp.accountNumber, '15000');
    expect(await settle(permanent.id)).toBe('FAILED');
    expect(await kit.reload(permanent.id)).toMatchObject({
      status: 'FAILED',
      failureReason: 'FX execution failed',
    });
    expect(await kit.events(permanent.id)).toEqual([
      { kind: 'deposit.created', status: 'PENDING_FX' },
      { kind: 'deposit.failed', status: 'FAILED' },
    ]);
    expect((await balanceOf(merchant)).usdAvailable).toBe('0.000000');
    await services.sandbox.set(orm.em.fork(), merchant, { fxFailure: 'NONE' });
  });

  it('a PERMANENT onramp converts at the rate current when the FX executes', async () => {
    const merchant = await kit.merchant();
    await kit.rate('USD');
    const onramp = await kit.onramp(merchant, 'PERMANENT');
    const deposit = await kit.transfer(onramp.accountNumber, '15000');
    expect(deposit).toMatchObject({
      status: 'PENDING_FX',
      rateId: null,
      amountAsset: null,
      asset: 'USD',
    });
    const later = await kit.rate('USD');
    expect(await settle(deposit.id)).toBe('SETTLED');
    expect(await kit.reload(deposit.id)).toMatchObject({ rateId: later.id, status: 'SETTLED' });
  });

  it('reversals: SETTLED to REVERSED (balance kept), PENDING_FX and FLAGGED to FAILED, once each', async () => {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant);
    const settled = await kit.transfer(onramp.accountNumber, '15000', 'REV-SETTLED');
    await settle(settled.id);
    const pending = await kit.transfer(onramp.accountNumber, '15000', 'REV-PENDING');
    const small = await kit.transfer(onramp.accountNumber, '100', 'REV-FAILED');
    const reverse = (ref: string) => services.reversals.reverse(orm.em.fork(), ref);

    const r1 = await reverse('REV-SETTLED');
    expect(r1).toMatchObject({ reversed: true, deposit: { status: 'REVERSED' } });
    expect((await reverse('REV-SETTLED')).reversed).toBe(false);
    expect((await balanceOf(merchant)).usdAvailable).toBe('9.949999');
    expect(await kit.events(settled.id)).toEqual([
      { kind: 'deposit.created', status: 'PENDING_FX' },
      { kind: 'deposit.settled', status: 'SETTLED' },
      { kind: 'deposit.reversed', status: 'REVERSED' },
    ]);

    const r2 = await reverse('REV-PENDING');
    expect(r2.deposit).toMatchObject({
      status: 'FAILED',
      failureReason: 'Bank reversed the transfer',
    });
    expect(await settle(pending.id)).toBe('skipped');

    const r3 = await reverse('REV-FAILED');
    expect(r3).toMatchObject({
      reversed: true,
      deposit: { status: 'FAILED', failureReason: 'Below minimum deposit' },
    });
    expect(await kit.events(small.id)).toHaveLength(1);

    await expect(reverse('NO-SUCH-REF')).rejects.toMatchObject({ code: ErrorCode.NotFound });
    await expect(
      services.reversals.reverse(orm.em.fork(), 'REV-PENDING', { merchantId: 'mer_other' }),
    ).rejects.toMatchObject({ code: ErrorCode.NotFound });
  });

  it('a merchant balance cannot go below zero, even by a direct ledger posting', async () => {
    const merchant = await kit.merchant();
    await expect(
      orm.em.fork().transactional(async (tx) => {
        await services.ledger.post(tx, {
          kind: 'test_overdraw',
          postings: transfer(
            merchantAccount(merchant, 'usd_available'),
            OPERATOR.usdTreasury,
            dec(1),
          ),
        });
      }),
    ).rejects.toThrow(/check constraint/);
  });
});
