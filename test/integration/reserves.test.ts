import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { DomainError } from '../../src/domain/errors';
import { dec, type Dec } from '../../src/domain/money';
import { checkLedger } from '../../src/reconciliation/ledger-check';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';

// Long enough that the kit's rate publications (10 minutes each) stay well inside 7 days.
const DAY_SECONDS = 3600;
const ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const usd = (value: Dec) => value.toFixed(6);

describe('reserves and reversal liability on the ledger (real PostgreSQL)', () => {
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock('2026-11-29T09:00:00Z');
    services = createServices(loadConfig({ RESERVE_DAY_SECONDS: String(DAY_SECONDS) }), clock);
    kit = depositKit(orm, services, clock);
  });
  afterAll(() => orm.close());

  const em = () => orm.em.fork();
  const sql = <T = Record<string, string>>(text: string, params: unknown[] = []) =>
    em().getConnection().execute<T[]>(text, params);
  const balance = (merchantId: string) => services.ledger.balance(em(), merchantId, new Date(0));
  const ledgerHolds = async () => {
    const connection = em().getConnection();
    expect(await checkLedger((text, params) => connection.execute(text, params))).toEqual([]);
  };
  /** A settled MERCHANT_BALANCE deposit of `amountNgn`, with its bank reference. */
  const settled = async (merchantId: string, amountNgn: string) => {
    const onramp = await kit.onramp(merchantId);
    const reference = `REF-RES-${Math.random().toString(36).slice(2)}`;
    const deposit = await kit.transfer(onramp.accountNumber, amountNgn, reference);
    expect(await services.settlement.settle(em(), deposit.id)).toBe('SETTLED');
    const row = await kit.reload(deposit.id);
    return { id: deposit.id, reference, amountAsset: dec(row.amountAsset!) };
  };
  const holdOf = async (depositId: string) =>
    (
      await sql<{ amount: string; drawn: string; released_at: Date | null }>(
        'select amount::text, drawn::text, released_at from reserve_holds where deposit_id = ?',
        [depositId],
      )
    )[0];
  const withdraw = (merchantId: string, amount: string) =>
    services.withdrawals.request(em(), merchantId, {
      amount,
      asset: 'USDC',
      chain: 'BASE',
      destination_address: ADDRESS,
    });

  it('holds 10 % of each balance settlement (rounded down) and releases it after hold_days', async () => {
    const merchant = await kit.merchant('Reserve Co');
    await services.merchantTerms.setReserve(em(), 'test', merchant, {
      percentBps: '1000',
      holdDays: '7',
    });
    const first = await settled(merchant, '15000');
    // 9.949999 x 10 % = 0.9949999: 0.994999 held.
    expect(usd(first.amountAsset)).toBe('9.949999');
    expect(await holdOf(first.id)).toEqual({
      amount: '0.994999',
      drawn: '0.000000',
      released_at: null,
    });
    clock.advance(1000);
    const second = await settled(merchant, '30000');
    const hold2 = second.amountAsset.times(0.1).toDecimalPlaces(6, 1);
    expect(await balance(merchant)).toMatchObject({
      usdAvailable: usd(first.amountAsset.plus(second.amountAsset).minus('0.994999').minus(hold2)),
      usdReserved: usd(hold2.plus('0.994999')),
    });
    await ledgerHolds();

    // Due 7 reserve days after each settlement (the kit's rate publications move the clock).
    const dueOf = async (depositId: string) => {
      const [row] = await sql<{ held_at: Date; release_at: Date }>(
        'select held_at, release_at from reserve_holds where deposit_id = ?',
        [depositId],
      );
      expect(new Date(row.release_at).getTime() - new Date(row.held_at).getTime()).toBe(
        7 * DAY_SECONDS * 1000,
      );
      return new Date(row.release_at);
    };
    const firstDue = await dueOf(first.id);
    const secondDue = await dueOf(second.id);
    // Not yet due: nothing released, however often the job runs.
    clock.set(new Date(firstDue.getTime() - 1));
    expect(await services.reserves.releaseDue(em(), 100)).toBe(0);
    clock.set(firstDue);
    expect(await services.reserves.releaseDue(em(), 100)).toBe(1);
    expect(await balance(merchant)).toMatchObject({ usdReserved: usd(hold2) });
    clock.set(secondDue);
    expect(await services.reserves.releaseDue(em(), 100)).toBe(1);
    expect(await services.reserves.releaseDue(em(), 100)).toBe(0);
    expect(await balance(merchant)).toMatchObject({
      usdAvailable: usd(first.amountAsset.plus(second.amountAsset)),
      usdReserved: '0.000000',
    });
    const events = await sql<{ snapshot: Record<string, unknown> }>(
      `select snapshot from events where merchant_id = ? and kind = 'balance.reserve_released'
        order by seq`,
      [merchant],
    );
    expect(events.map((e) => e.snapshot)).toEqual([
      { merchant_id: merchant, amount: '0.994999', deposit_ids: [first.id] },
      { merchant_id: merchant, amount: usd(hold2), deposit_ids: [second.id] },
    ]);
    await ledgerHolds();
  });

  it('a liable reversal takes its own hold, then older holds, then available, then goes negative; the next settlement repays', async () => {
    const merchant = await kit.merchant('Liable Co');
    await services.merchantTerms.setLiability(em(), 'test', merchant, 'merchant');
    await services.merchantTerms.setReserve(em(), 'test', merchant, {
      percentBps: '1000',
      holdDays: '7',
    });
    const older = await settled(merchant, '15000');
    clock.advance(1000);
    const reversed = await settled(merchant, '30000');
    const olderHold = dec('0.994999');
    const ownHold = reversed.amountAsset.times(0.1).toDecimalPlaces(6, 1);
    // Spend what is available, so the debit must go below zero.
    const spendable = older.amountAsset.plus(reversed.amountAsset).minus(olderHold).minus(ownHold);
    await withdraw(merchant, usd(spendable));
    expect((await balance(merchant)).usdAvailable).toBe('0.000000');

    const outcome = await services.reversals.reverse(em(), reversed.reference);
    expect(outcome.deposit.status).toBe('REVERSED');
    expect(outcome.merchantDebit).toBe(usd(reversed.amountAsset));
    expect(await holdOf(reversed.id)).toMatchObject({ drawn: usd(ownHold) });
    expect(await holdOf(older.id)).toMatchObject({ drawn: usd(olderHold) });
    const owed = reversed.amountAsset.minus(ownHold).minus(olderHold);
    expect(await balance(merchant)).toMatchObject({
      usdAvailable: usd(owed.neg()),
      usdReserved: '0.000000',
    });
    const [event] = await sql<{ snapshot: Record<string, unknown> }>(
      `select snapshot from events where deposit_id = ? and kind = 'deposit.reversed'`,
      [reversed.id],
    );
    expect(event.snapshot.merchant_debit).toBe(usd(reversed.amountAsset));
    // Nothing can be withdrawn while the balance is negative.
    await expect(withdraw(merchant, '1')).rejects.toMatchObject({ code: 'insufficient_balance' });
    await ledgerHolds();

    // The next settlement: its reserve share first, then the debt, then the rest.
    const next = await settled(merchant, '45000');
    const nextHold = next.amountAsset.times(0.1).toDecimalPlaces(6, 1);
    expect(await balance(merchant)).toMatchObject({
      usdAvailable: usd(next.amountAsset.minus(nextHold).minus(owed)),
      usdReserved: usd(nextHold),
    });
    const repayments = await sql<{ amount: string }>(
      `select p.amount::text from ledger_transactions t join ledger_postings p on p.transaction_id = t.id
        where t.kind = 'debt_repayment' and t.deposit_id = ? and p.direction = 'CREDIT'`,
      [next.id],
    );
    expect(repayments).toEqual([{ amount: usd(owed) }]);
    // A drawn-out hold releases nothing: no release of them, ever.
    clock.advance(8 * DAY_SECONDS * 1000);
    expect(await services.reserves.releaseDue(em(), 100)).toBe(1);
    expect(await holdOf(older.id)).toMatchObject({ released_at: null });
    expect(await balance(merchant)).toMatchObject({
      usdAvailable: usd(next.amountAsset.minus(owed)),
      usdReserved: '0.000000',
    });
    await ledgerHolds();
  });

  it('the operator bears the reversal by default: no debit, no merchant_debit in the event', async () => {
    const merchant = await kit.merchant('Default Co');
    const deposit = await settled(merchant, '15000');
    const outcome = await services.reversals.reverse(em(), deposit.reference);
    expect(outcome.deposit.status).toBe('REVERSED');
    expect(outcome.merchantDebit).toBeNull();
    expect((await balance(merchant)).usdAvailable).toBe(usd(deposit.amountAsset));
    const [event] = await sql<{ snapshot: Record<string, unknown> }>(
      `select snapshot from events where deposit_id = ? and kind = 'deposit.reversed'`,
      [deposit.id],
    );
    expect(event.snapshot).not.toHaveProperty('merchant_debit');
    await ledgerHolds();
  });

  it('never holds a reserve on an AUTO_WITHDRAW deposit', async () => {
    const merchant = await kit.merchant('Auto Co');
    await services.merchantTerms.setReserve(em(), 'test', merchant, {
      percentBps: '5000',
      holdDays: '1',
    });
    const onramp = await kit.onramp(merchant, 'THROWAWAY', undefined, {
      mode: 'AUTO_WITHDRAW',
      asset: 'USDC',
      chain: 'BASE',
      destinationAddress: ADDRESS,
    });
    const deposit = await kit.transfer(onramp.accountNumber, '15000');
    expect(await services.settlement.settle(em(), deposit.id)).toBe('PENDING_WITHDRAWAL');
    expect(await holdOf(deposit.id)).toBeUndefined();
    expect((await balance(merchant)).usdReserved).toBe('0.000000');
    await ledgerHolds();
  });

  it.each([
    ['-1', '7'],
    ['10001', '7'],
    ['1000', '366'],
    ['ten', '7'],
    ['1000', '7.5'],
  ])('refuses a reserve of %p bps for %p days and changes nothing', async (bps, days) => {
    const merchant = await kit.merchant('Bad Terms Co');
    await services.merchantTerms.setReserve(em(), 'test', merchant, {
      percentBps: '250',
      holdDays: '3',
    });
    const audits = () =>
      sql<{ n: string }>('select count(*)::text as n from audit_log where target_id = ?', [
        merchant,
      ]);
    const before = await audits();
    const error = await services.merchantTerms
      .setReserve(em(), 'test', merchant, { percentBps: bps, holdDays: days })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('invalid_parameter');
    expect(await services.merchantTerms.read(em(), merchant)).toMatchObject({
      reserve: { percent_bps: 250, hold_days: 3 },
    });
    expect(await audits()).toEqual(before);
  });
});
