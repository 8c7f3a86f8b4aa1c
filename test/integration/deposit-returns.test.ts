import type { MikroORM } from '@mikro-orm/postgresql';
import { SandboxBankTransfers } from '../../src/sandbox/sandbox-bank-transfers';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { checkLedger } from '../../src/reconciliation/ledger-check';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';

const PAYER = { senderName: 'ADA OBI', senderAccount: '0123456789', senderBank: '058' };

describe('returns to the payer (real PostgreSQL)', () => {
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  let bank: SandboxBankTransfers;
  let kit: ReturnType<typeof depositKit>;
  let serial = 0;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock('2026-10-01T09:00:00Z');
    bank = new SandboxBankTransfers();
    services = createServices(loadConfig({ RETURN_FEE_NGN: '100' }), clock, {
      bankTransfers: bank,
    });
    kit = depositKit(orm, services, clock);
  });
  afterAll(async () => {
    await orm?.close();
  });

  const em = () => orm.em.fork();
  const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
    orm.em.fork().getConnection().execute<T[]>(text, params);
  const held = async (depositId: string, account: string) => {
    const [row] = await sql<{ held: string }>(
      `select coalesce(sum(case p.direction when 'CREDIT' then p.amount else -p.amount end), 0)::text as held
         from ledger_postings p join ledger_transactions t on t.id = p.transaction_id
        where t.deposit_id = ? and p.account_id = ?`,
      [depositId, account],
    );
    return Number(row.held);
  };
  const transfersOf = (depositId: string) =>
    bank.transfers.filter((t) => t.depositId === depositId);
  const expectLedgerClean = async () => {
    const connection = orm.em.getConnection();
    expect(await checkLedger((text, params) => connection.execute(text, params))).toEqual([]);
  };

  /** A FLAGGED unconverted deposit (a transfer after its onramp expired), from PAYER. */
  async function lateDeposit(merchantId: string, ngn = '20000', payer = PAYER) {
    const onramp = await kit.onramp(merchantId);
    clock.advance((services.config.ONRAMP_TTL_SECONDS + 1) * 1000);
    serial += 1;
    const outcome = await services.ingestion.receive(em(), {
      accountNumber: onramp.accountNumber,
      amountNgn: ngn,
      bankReference: `RET-${Date.now()}-${serial}`,
      ...payer,
    });
    if (outcome.kind !== 'deposit') throw new Error('unmatched');
    expect(outcome.deposit.status).toBe('FLAGGED');
    return outcome.deposit;
  }

  it('a merchant return: RETURNING, then RETURNED with the NGN out of the ledger and the fee in revenue', async () => {
    const merchant = await kit.merchant();
    const deposit = await lateDeposit(merchant);
    const started = await services.returns.returnForMerchant(em(), merchant, deposit.id);
    expect(started.status).toBe('RETURNING');
    expect(await held(deposit.id, 'operator:ngn_suspense')).toBe(0);
    expect(await held(deposit.id, 'operator:ngn_returns')).toBe(20000);
    await expectLedgerClean();

    expect(await services.returnSender.sendDue(em())).toBe(1);
    expect(await kit.reload(deposit.id)).toMatchObject({ status: 'RETURNED' });
    expect(transfersOf(deposit.id)).toEqual([
      expect.objectContaining({
        amountNgn: '19900.00',
        toAccount: PAYER.senderAccount,
        bankCode: PAYER.senderBank,
        name: PAYER.senderName,
      }),
    ]);
    expect(await held(deposit.id, 'operator:ngn_returns')).toBe(0);
    expect(await held(deposit.id, 'operator:ngn_return_fees')).toBe(100);
    // ngn_bank is an asset (DEBIT): received 20000, 19900 left for the payer.
    expect(-(await held(deposit.id, 'operator:ngn_bank'))).toBe(100);
    expect((await kit.events(deposit.id)).map((e) => e.kind)).toEqual([
      'deposit.flagged',
      'deposit.returning',
      'deposit.returned',
    ]);
    await expectLedgerClean();
  });

  it('only FLAGGED deposits of the merchant, with a payer account, can be returned', async () => {
    const merchant = await kit.merchant();
    const other = await kit.merchant('Other Co');
    const deposit = await lateDeposit(merchant);
    await expect(services.returns.returnForMerchant(em(), other, deposit.id)).rejects.toMatchObject(
      { code: 'not_found' },
    );
    await services.returns.returnForMerchant(em(), merchant, deposit.id);
    await expect(
      services.returns.returnForMerchant(em(), merchant, deposit.id),
    ).rejects.toMatchObject({
      code: 'invalid_parameter',
      message: expect.stringMatching(/Only FLAGGED .* this one is RETURNING/),
    });
    const anonymous = await lateDeposit(merchant, '5000', {
      senderName: 'X',
      senderAccount: null as unknown as string,
      senderBank: '058',
    });
    await expect(
      services.returns.returnForMerchant(em(), merchant, anonymous.id),
    ).rejects.toMatchObject({
      code: 'invalid_parameter',
      message: expect.stringMatching(/account/),
    });
    expect(await kit.reload(anonymous.id)).toMatchObject({ status: 'FLAGGED' });
    await services.returnSender.sendDue(em());
    await expectLedgerClean();
  });

  it('a bank refusal: RETURN_FAILED with the NGN back in suspense; the operator tries again', async () => {
    const merchant = await kit.merchant();
    const deposit = await lateDeposit(merchant);
    await services.sandbox.set(em(), merchant, { returnFailure: true });
    await services.returns.returnForMerchant(em(), merchant, deposit.id);
    await services.returnSender.sendDue(em());
    expect(await kit.reload(deposit.id)).toMatchObject({ status: 'RETURN_FAILED' });
    expect(await held(deposit.id, 'operator:ngn_suspense')).toBe(20000);
    expect(await held(deposit.id, 'operator:ngn_returns')).toBe(0);
    expect(transfersOf(deposit.id)).toEqual([]);
    await expectLedgerClean();
    // The merchant may not retry; the operator may.
    await expect(
      services.returns.returnForMerchant(em(), merchant, deposit.id),
    ).rejects.toMatchObject({ code: 'invalid_parameter' });

    await services.sandbox.set(em(), merchant, { returnFailure: false });
    const retried = await services.operator.resolveDeposit(em(), 'cli:ops', deposit.id, 'return');
    expect(retried.status).toBe('RETURNING');
    await services.returnSender.sendDue(em());
    expect(await kit.reload(deposit.id)).toMatchObject({ status: 'RETURNED' });
    expect(transfersOf(deposit.id)).toHaveLength(1);
    expect((await kit.events(deposit.id)).map((e) => e.kind)).toEqual([
      'deposit.flagged',
      'deposit.returning',
      'deposit.return_failed',
      'deposit.returning',
      'deposit.returned',
    ]);
    await expectLedgerClean();
  });

  it('a crash between the bank call and its outcome: the sweep sends again with the same reference, one transfer', async () => {
    const merchant = await kit.merchant();
    const deposit = await lateDeposit(merchant);
    await services.returns.returnForMerchant(em(), merchant, deposit.id);
    const [attempt] = await sql<{ id: string }>(
      'select id from deposit_returns where deposit_id = ?',
      [deposit.id],
    );
    // The runner called the bank, then died before recording the answer: claim taken, no outcome.
    await bank.sendReturn(
      {
        depositId: deposit.id,
        merchantId: merchant,
        amountNgn: '19900.00',
        toAccount: PAYER.senderAccount,
        bankCode: PAYER.senderBank,
        name: PAYER.senderName,
        reference: attempt.id,
      },
      em(),
    );
    await sql(`update deposit_returns set attempts = 1, next_attempt_at = ? where id = ?`, [
      new Date(clock.now().getTime() + 30_000),
      attempt.id,
    ]);
    expect(await services.returnSender.sendDue(em())).toBe(0); // still claimed
    expect(await kit.reload(deposit.id)).toMatchObject({ status: 'RETURNING' });
    clock.advance(31_000);
    expect(await services.returnSender.sendDue(em())).toBe(1);
    expect(await kit.reload(deposit.id)).toMatchObject({ status: 'RETURNED' });
    expect(transfersOf(deposit.id).map((t) => t.reference)).toEqual([attempt.id]);
    await expectLedgerClean();
  });

  it('two concurrent returns of one deposit: one RETURNING, one refused, one transfer', async () => {
    const merchant = await kit.merchant();
    const deposit = await lateDeposit(merchant);
    const results = await Promise.allSettled([
      services.returns.returnForMerchant(em(), merchant, deposit.id),
      services.operator.resolveDeposit(em(), 'cli:ops', deposit.id, 'return'),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([
      expect.objectContaining({ reason: expect.objectContaining({ code: 'invalid_parameter' }) }),
    ]);
    await Promise.all([services.returnSender.sendDue(em()), services.returnSender.sendDue(em())]);
    expect(await kit.reload(deposit.id)).toMatchObject({ status: 'RETURNED' });
    expect(transfersOf(deposit.id)).toHaveLength(1);
    const [{ n }] = await sql<{ n: string }>(
      'select count(*)::text as n from deposit_returns where deposit_id = ?',
      [deposit.id],
    );
    expect(n).toBe('1');
    await expectLedgerClean();
  });
});
