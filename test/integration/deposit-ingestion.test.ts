import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { DomainError, ErrorCode } from '../../src/domain/errors';
import { DEPOSIT_TRANSITIONS } from '../../src/domain/deposit-state-machine';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import { secretKeyContext } from '../support/contexts';

describe('deposit ingestion: first status, events, idempotency (real PostgreSQL)', () => {
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock('2026-07-01T09:00:00Z');
    services = createServices(loadConfig({ SYSTEM_DAILY_LIMIT_USD: '1000000' }), clock);
    kit = depositKit(orm, services, clock);
  });
  afterAll(() => orm.close());

  it('a transfer inside the TTL and rate validity is PENDING_FX with amount_asset at the locked rate', async () => {
    const merchant = await kit.merchant();
    const rate = await kit.rate();
    const onramp = await kit.onramp(merchant, 'EPHEMERAL', rate.id);
    const deposit = await kit.transfer(onramp.accountNumber, '15000');
    expect(deposit).toMatchObject({
      status: 'PENDING_FX',
      onrampId: onramp.id,
      merchantId: merchant,
      paymentReference: onramp.paymentReference,
      userEmail: 'ada@example.com',
      amountNgn: '15000.00',
      rateId: rate.id,
      asset: 'USDC',
      chain: null,
      failureReason: null,
      flagReason: null,
    });
    // 15000 x inverse_rate (1/1500 x 0.995 = 0.000663333333333), rounded down to 6 places.
    expect(deposit.amountAsset).toBe('9.949999');
    expect(await kit.events(deposit.id)).toEqual([
      { kind: 'deposit.created', status: 'PENDING_FX' },
    ]);
  });

  it('flags a transfer after onramp expiry, with the spec reason and deposit.flagged', async () => {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant, 'EPHEMERAL');
    clock.advance(services.config.ONRAMP_TTL_SECONDS * 1000);
    const deposit = await kit.transfer(onramp.accountNumber, '15000');
    expect(deposit.status).toBe('FLAGGED');
    expect(deposit.flagReason).toBe('Deposit received after onramp expiry');
    expect(await kit.events(deposit.id)).toEqual([{ kind: 'deposit.flagged', status: 'FLAGGED' }]);
  });

  it('flags a transfer after the locked rate expired (onramp still inside its TTL)', async () => {
    const merchant = await kit.merchant();
    const rate = await kit.rate();
    // Created just before the rate's end: the onramp outlives its rate.
    clock.set(new Date(rate.expiresAt.getTime() - 60_000));
    const onramp = await kit.onramp(merchant, 'EPHEMERAL', rate.id);
    clock.advance(120_000);
    const deposit = await kit.transfer(onramp.accountNumber, '15000');
    expect(deposit).toMatchObject({
      status: 'FLAGGED',
      flagReason: 'Deposit received after rate expiry',
    });
  });

  it('fails a transfer below min_deposit_ngn with no event kind other than deposit.failed', async () => {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant);
    const deposit = await kit.transfer(onramp.accountNumber, '1499.99');
    expect(deposit).toMatchObject({ status: 'FAILED', failureReason: 'Below minimum deposit' });
    expect(await kit.events(deposit.id)).toEqual([{ kind: 'deposit.failed', status: 'FAILED' }]);
    const atMinimum = await kit.transfer(onramp.accountNumber, '1500');
    expect(atMinimum.status).toBe('PENDING_FX');
  });

  it('flags a second transfer to a THROWAWAY, which the first transfer completed', async () => {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant, 'THROWAWAY');
    const first = await kit.transfer(onramp.accountNumber, '15000');
    expect(first.status).toBe('PENDING_FX');
    const reread = await services.onramps.get(
      orm.em.fork(),
      secretKeyContext(services, merchant),
      onramp.id,
    );
    expect(reread.status).toBe('COMPLETED');
    const [assignment] = await orm.em
      .fork()
      .getConnection()
      .execute('select released_at from virtual_account_assignments where onramp_id = ?', [
        onramp.id,
      ]);
    expect(assignment.released_at).not.toBeNull();
    const second = await kit.transfer(onramp.accountNumber, '15000');
    expect(second).toMatchObject({
      status: 'FLAGGED',
      flagReason: 'Second transfer to a throwaway onramp',
    });
  });

  it('flags transfers to a frozen merchant', async () => {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant);
    await orm.em
      .fork()
      .getConnection()
      .execute("update merchants set status = 'FROZEN' where id = ?", [merchant]);
    const deposit = await kit.transfer(onramp.accountNumber, '15000');
    expect(deposit).toMatchObject({ status: 'FLAGGED', flagReason: 'Merchant account frozen' });
  });

  it('flags a transfer over the per-deposit limit of 1,000 USD', async () => {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant);
    // 1,508,000 NGN x 0.000663333333333 = 1000.31 USD
    const over = await kit.transfer(onramp.accountNumber, '1508000');
    expect(over).toMatchObject({
      status: 'FLAGGED',
      flagReason: 'Exceeds the per-deposit limit of 1,000 USD',
    });
    const under = await kit.transfer(onramp.accountNumber, '1507000');
    expect(under.status).toBe('PENDING_FX');
  });

  it('flags deposits past the merchant daily limit and counts only PENDING_FX or later', async () => {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant);
    const statuses: string[] = [];
    // 1,356,000 NGN is about 899.48 USD: eleven fit in 10,000 USD, the twelfth does not.
    for (let i = 0; i < 12; i += 1)
      statuses.push((await kit.transfer(onramp.accountNumber, '1356000')).status);
    expect(statuses.filter((s) => s === 'PENDING_FX')).toHaveLength(11);
    const twelfth = statuses[11];
    expect(twelfth).toBe('FLAGGED');
    const [last] = await orm.em
      .fork()
      .getConnection()
      .execute("select flag_reason from deposits where merchant_id = ? and status = 'FLAGGED'", [
        merchant,
      ]);
    expect(last.flag_reason).toBe('Exceeds the merchant daily limit of 10,000 USD');
    // A small one still fits: the flagged twelfth does not count.
    expect((await kit.transfer(onramp.accountNumber, '50000')).status).toBe('PENDING_FX');
  });

  it('15 racing 900-USD transfers into 15 onramps with 10,000 USD of room: 11 PENDING_FX, the total exact', async () => {
    // Each onramp has its own row lock, so these race only on the daily totals, which are read
    // unlocked first and confirmed under the lock before commit (else all 15 would fit).
    const merchant = await kit.merchant();
    const rate = await kit.rate();
    const onramps = [];
    for (let i = 0; i < 15; i += 1) onramps.push(await kit.onramp(merchant, 'EPHEMERAL', rate.id));
    const outcomes = await Promise.all(
      onramps.map((onramp, i) =>
        services.ingestion.receive(orm.em.fork(), {
          accountNumber: onramp.accountNumber,
          amountNgn: '1356000',
          bankReference: `RACE-${i}`,
        }),
      ),
    );
    const statuses = outcomes.map((o) => (o.kind === 'deposit' ? o.deposit.status : o.kind));
    expect(statuses.filter((s) => s === 'PENDING_FX')).toHaveLength(11);
    expect(statuses.filter((s) => s === 'FLAGGED')).toHaveLength(4);
    const [row] = await orm.em
      .fork()
      .getConnection()
      .execute(
        `select v.usd::text as counted,
                (select sum(limit_usd)::text from deposits
                  where merchant_id = ? and status = 'PENDING_FX') as pending
           from deposit_daily_volume v where v.scope = ?`,
        [merchant, merchant],
      );
    expect(row.counted).toBe(row.pending);
  });

  it('starts a fresh merchant day at midnight in Africa/Lagos (23:00 UTC)', async () => {
    const merchant = await kit.merchant();
    clock.set('2026-07-10T22:00:00Z');
    await kit.rate();
    const onramp = await kit.onramp(merchant, 'PERMANENT');
    clock.set('2026-07-10T22:50:00Z');
    for (let i = 0; i < 11; i += 1) await kit.transfer(onramp.accountNumber, '1356000');
    expect((await kit.transfer(onramp.accountNumber, '1356000')).status).toBe('FLAGGED');
    clock.set('2026-07-10T23:00:01Z'); // 00:00:01 on 11 July in Lagos
    expect((await kit.transfer(onramp.accountNumber, '1356000')).status).toBe('PENDING_FX');
  });

  it('flags a transfer to a deactivated PERMANENT onramp', async () => {
    const merchant = await kit.merchant();
    await kit.rate();
    const onramp = await kit.onramp(merchant, 'PERMANENT');
    await services.onramps.deactivate(orm.em.fork(), merchant, onramp.id);
    const deposit = await kit.transfer(onramp.accountNumber, '15000');
    expect(deposit).toMatchObject({
      status: 'FLAGGED',
      flagReason: 'Deposit received after onramp deactivation',
    });
  });

  it('one deposit per bank_reference under 100 concurrent notifications; one deposit.created', async () => {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant);
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, () =>
        services.ingestion.receive(orm.em.fork(), {
          accountNumber: onramp.accountNumber,
          amountNgn: '20000',
          bankReference: 'SAME-REF-100',
        }),
      ),
    );
    const ids = new Set(outcomes.map((o) => (o.kind === 'deposit' ? o.deposit.id : 'unmatched')));
    expect(ids.size).toBe(1);
    expect(outcomes.filter((o) => o.created)).toHaveLength(1);
    const [id] = [...ids];
    expect(await kit.events(id)).toEqual([{ kind: 'deposit.created', status: 'PENDING_FX' }]);
    const [{ count }] = await orm.em
      .fork()
      .getConnection()
      .execute("select count(*)::int as count from deposits where bank_reference = 'SAME-REF-100'");
    expect(count).toBe(1);
  });

  it('equal amounts with different references are separate deposits', async () => {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant);
    const a = await kit.transfer(onramp.accountNumber, '20000', 'EQ-A');
    const b = await kit.transfer(onramp.accountNumber, '20000', 'EQ-B');
    expect(a.id).not.toBe(b.id);
  });

  it('records a transfer to an account no onramp held as unmatched, once', async () => {
    const input = { accountNumber: '9999999999', amountNgn: '5000', bankReference: 'UNMATCHED-1' };
    expect(await services.ingestion.receive(orm.em.fork(), input)).toEqual({
      kind: 'unmatched',
      created: true,
    });
    expect(await services.ingestion.receive(orm.em.fork(), input)).toEqual({
      kind: 'unmatched',
      created: false,
    });
    await expect(
      services.ingestion.receive(
        orm.em.fork(),
        { ...input, bankReference: 'UNMATCHED-2' },
        { merchantId: 'mer_x' },
      ),
    ).rejects.toMatchObject({ code: ErrorCode.NotFound });
  });

  it('refuses malformed transfers with invalid_parameter and records nothing', async () => {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant);
    for (const amountNgn of ['0', '-5', '1.234', '1e5', 'abc', '100000000000.01']) {
      await expect(
        services.ingestion.receive(orm.em.fork(), {
          accountNumber: onramp.accountNumber,
          amountNgn,
          bankReference: `BAD-${amountNgn}`,
        }),
      ).rejects.toBeInstanceOf(DomainError);
    }
    const [{ count }] = await orm.em
      .fork()
      .getConnection()
      .execute("select count(*)::int as count from deposits where bank_reference like 'BAD-%'");
    expect(count).toBe(0);
  });

  it('the database refuses a status move outside the transition table, and its table equals the domain one', async () => {
    const rows = await orm.em
      .fork()
      .getConnection()
      .execute<Array<{ from_status: string; to_status: string }>>(
        'select from_status, to_status from deposit_transitions',
      );
    const fromDb = rows.map((r) => `${r.from_status}>${r.to_status}`).sort();
    const fromDomain = Object.entries(DEPOSIT_TRANSITIONS)
      .flatMap(([from, tos]) => tos.map((to) => `${from}>${to}`))
      .sort();
    expect(fromDb).toEqual(fromDomain);

    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant);
    const deposit = await kit.transfer(onramp.accountNumber, '1000'); // FAILED below minimum
    await expect(
      orm.em
        .fork()
        .getConnection()
        .execute("update deposits set status = 'PENDING_FX', failure_reason = null where id = ?", [
          deposit.id,
        ]),
    ).rejects.toThrow(/cannot move from FAILED to PENDING_FX/);
    await expect(
      orm.em
        .fork()
        .getConnection()
        .execute('update deposits set amount_ngn = 1 where id = ?', [deposit.id]),
    ).rejects.toThrow(/immutable/);
  });
});
