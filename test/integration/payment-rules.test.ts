import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { depositViewFromSnapshot, publicDeposit } from '../../src/deposits';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import { secretKeyContext } from '../support/contexts';

/** The payer's side on a real database: the payment rules at arrival and the payer's privacy. */
describe('payment rules and the payer at ingestion (real PostgreSQL)', () => {
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;
  let serial = 0;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock('2026-07-01T09:00:00Z');
    services = createServices(loadConfig({ SYSTEM_DAILY_LIMIT_USD: '1000000' }), clock);
    kit = depositKit(orm, services, clock);
  });
  afterAll(() => orm.close());

  async function onrampExpecting(merchantId: string, amountNgn: string, payerName?: string) {
    const rate = await kit.rate();
    const created = await services.onramps.create(orm.em.fork(), merchantId, {
      type: 'THROWAWAY',
      user: { email: 'ada@example.com' },
      rateId: rate.id,
      amountNgn,
      payerName,
      settlement: { mode: 'MERCHANT_BALANCE' },
    });
    return created.onramp;
  }

  async function pay(accountNumber: string, amountNgn: string, senderName = 'OKAFOR ADAEZE') {
    serial += 1;
    const outcome = await services.ingestion.receive(orm.em.fork(), {
      accountNumber,
      amountNgn,
      bankReference: `RULES-${serial}-${Date.now()}`,
      senderName,
      senderAccount: '0123456789',
      senderBank: '058',
    });
    if (outcome.kind !== 'deposit') throw new Error('unmatched');
    return outcome.deposit;
  }

  const setRules = (merchantId: string, patch: Record<string, unknown>) =>
    services.merchantSettings.update(orm.em.fork(), { merchantId, keyId: 'key_test' }, patch);

  it('under accept (the default) every amount settles as before', async () => {
    const merchant = await kit.merchant();
    const settings = await services.merchantSettings.get(orm.em.fork(), merchant);
    expect(settings.underpayment).toEqual({
      tolerance_ngn: '0.00',
      tolerance_bps: 0,
      action: 'accept',
    });
    expect(settings.payer_name_check).toEqual({ enabled: false, action: 'flag' });
    for (const amount of ['4000.00', '5000.00', '9000.00']) {
      const onramp = await onrampExpecting(merchant, '5000.00');
      expect((await pay(onramp.accountNumber, amount)).status).toBe('PENDING_FX');
    }
  });

  it('under flag: underpaid and overpaid are FLAGGED with their reasons, exact and within pass', async () => {
    const merchant = await kit.merchant();
    // Created first: a rate moves the clock on by its interval (as long as the delay).
    const early = await onrampExpecting(merchant, '5000.00');
    await setRules(merchant, {
      underpayment: { tolerance_ngn: '50.00', action: 'flag' },
      overpayment: { tolerance_bps: 100, action: 'flag' },
    });
    // The actions apply now; the raised tolerances wait the sandbox's 60 s (issue 32).
    const short = await pay(early.accountNumber, '4950.00');
    expect([short.status, short.flagReason]).toEqual(['FLAGGED', 'Underpaid']);
    // Due: the arrival reads them even though no job has applied them yet.
    clock.advance(60_000);
    const cases: Array<[string, string, string | null]> = [
      ['5000.00', 'PENDING_FX', null],
      ['4950.00', 'PENDING_FX', null], // exactly 50 short
      ['4949.99', 'FLAGGED', 'Underpaid'],
      ['5050.00', 'PENDING_FX', null], // exactly 1 % over
      ['5050.01', 'FLAGGED', 'Overpaid'],
    ];
    for (const [amount, status, reason] of cases) {
      const onramp = await onrampExpecting(merchant, '5000.00');
      const deposit = await pay(onramp.accountNumber, amount);
      expect([amount, deposit.status, deposit.flagReason]).toEqual([amount, status, reason]);
      const events = await kit.events(deposit.id);
      expect(events[0].kind).toBe(status === 'FLAGGED' ? 'deposit.flagged' : 'deposit.created');
    }
  });

  it('a payer name mismatch is flagged when the check is on; a match passes', async () => {
    const merchant = await kit.merchant();
    await setRules(merchant, { payer_name_check: { enabled: true } });
    const ok = await onrampExpecting(merchant, '5000.00', 'Adaeze Okafor');
    expect((await pay(ok.accountNumber, '5000.00', 'MRS OKAFOR ADAEZE CHIOMA')).status).toBe(
      'PENDING_FX',
    );
    const other = await onrampExpecting(merchant, '5000.00', 'Adaeze Okafor');
    const flagged = await pay(other.accountNumber, '5000.00', 'NGOZI BELLO');
    expect(flagged).toMatchObject({ status: 'FLAGGED', flagReason: 'Payer name mismatch' });
  });

  it('the action return flags the deposit with its reason and starts its return at once', async () => {
    const merchant = await kit.merchant();
    await setRules(merchant, { underpayment: { action: 'return' } });
    const onramp = await onrampExpecting(merchant, '5000.00');
    const deposit = await pay(onramp.accountNumber, '4000.00');
    expect([deposit.status, deposit.flagReason]).toEqual(['RETURNING', 'Underpaid']);
    expect((await kit.reload(deposit.id)).status).toBe('RETURNING');
    const events = await kit.events(deposit.id);
    expect(events.map((e) => e.kind)).toEqual(['deposit.flagged', 'deposit.returning']);
    // A transfer whose paying account the bank did not name stays FLAGGED.
    const unnamed = await services.ingestion.receive(orm.em.fork(), {
      accountNumber: (await onrampExpecting(merchant, '5000.00')).accountNumber,
      amountNgn: '4000.00',
      bankReference: `RULES-unnamed-${Date.now()}`,
    });
    if (unnamed.kind !== 'deposit') throw new Error('unmatched');
    expect([unnamed.deposit.status, unnamed.deposit.flagReason]).toEqual(['FLAGGED', 'Underpaid']);
  });

  it("stores the payer's full account number but shows only its last four digits", async () => {
    const merchant = await kit.merchant();
    const onramp = await onrampExpecting(merchant, '5000.00');
    const deposit = await pay(onramp.accountNumber, '5000.00');
    expect((await kit.reload(deposit.id)).senderAccount).toBe('0123456789');
    const read = await services.deposits.getView(
      orm.em.fork(),
      secretKeyContext(services, merchant),
      deposit.id,
    );
    const listed = await services.deposits.list(
      orm.em.fork(),
      secretKeyContext(services, merchant),
      {},
      { offset: 0, limit: 10 },
    );
    const snapshots = await orm.em
      .fork()
      .getConnection()
      .execute<Array<{ snapshot: Record<string, unknown> }>>(
        'select snapshot from events where deposit_id = ?',
        [deposit.id],
      );
    expect(snapshots.length).toBeGreaterThan(0);
    const answers = [
      publicDeposit(deposit),
      publicDeposit(read),
      ...listed.deposits.map(publicDeposit),
      ...snapshots.map((s) => publicDeposit(depositViewFromSnapshot(s.snapshot))),
    ];
    for (const answer of answers) {
      expect(answer.payer).toEqual({
        account_name: 'OKAFOR ADAEZE',
        account_number_last4: '6789',
        bank_code: '058',
      });
    }
    // Neither the answers nor the stored snapshots carry the full number anywhere.
    expect(JSON.stringify([answers, snapshots])).not.toContain('0123456789');
  });
});
