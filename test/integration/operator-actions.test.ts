import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { REASON } from '../../src/domain/deposit-reasons';
import { KeyEnvironment } from '../../src/domain/key-environment';
import { checkLedger } from '../../src/reconciliation/ledger-check';
import { Dec, dec } from '../../src/domain/money';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import { startTestChains, type TestChains } from '../support/chains';
import { eventually } from '../support/stack';

const DESTINATION = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const ACTOR = 'cli:test-operator';
const PAYER = { senderName: 'ADA OBI', senderAccount: '0123456789', senderBank: '058' };

describe('operator actions (real PostgreSQL, real anvil chains)', () => {
  let chains: TestChains;
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;

  beforeAll(async () => {
    chains = await startTestChains();
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock('2026-09-01T09:00:00Z');
    services = createServices(loadConfig({ ...chains.env }), clock);
    kit = depositKit(orm, services, clock);
  });
  afterAll(async () => {
    await orm?.close();
    await chains?.stop();
  });

  const em = () => orm.em.fork();
  const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
    orm.em.fork().getConnection().execute<T[]>(text, params);
  const ledgerOf = (depositId: string) =>
    sql<{ kind: string; account_id: string; direction: string; amount: string }>(
      `select t.kind, p.account_id, p.direction, p.amount::text as amount
         from ledger_transactions t join ledger_postings p on p.transaction_id = t.id
        where t.deposit_id = ? order by t.created_at, t.id, p.account_id`,
      [depositId],
    );
  const auditOf = (targetId: string) =>
    services.auditLog.list(em(), { targetId, limit: 100 }).then((page) => page.entries);
  const expectLedgerClean = async () => {
    const connection = orm.em.getConnection();
    expect(await checkLedger((text, params) => connection.execute(text, params))).toEqual([]);
  };

  /** A FLAGGED unconverted deposit: a transfer after its onramp expired. */
  async function lateDeposit(merchantId: string, ngn = '15000') {
    const onramp = await kit.onramp(merchantId);
    clock.advance((services.config.ONRAMP_TTL_SECONDS + 1) * 1000);
    const deposit = await kit.transfer(onramp.accountNumber, ngn, undefined, PAYER);
    expect(deposit).toMatchObject({ status: 'FLAGGED', flagReason: REASON.afterOnrampExpiry });
    return deposit;
  }

  /** An AUTO_WITHDRAW deposit converted, then FLAGGED by risk review (USD held in suspense). */
  async function riskRejectedDeposit(merchantId: string) {
    await services.sandbox.set(em(), merchantId, { riskReject: true });
    const onramp = await kit.onramp(merchantId, 'EPHEMERAL', undefined, {
      mode: 'AUTO_WITHDRAW',
      asset: 'USDC',
      chain: 'BASE',
      destinationAddress: DESTINATION,
    });
    const deposit = await kit.transfer(onramp.accountNumber, '15000', undefined, PAYER);
    expect(await services.settlement.settle(em(), deposit.id)).toBe('PENDING_WITHDRAWAL');
    const [payout] = await sql<{ id: string }>('select id from payouts where deposit_id = ?', [
      deposit.id,
    ]);
    expect(await services.payouts.send(em(), payout.id)).toBe('rejected');
    await services.sandbox.set(em(), merchantId, { riskReject: false });
    const flagged = await kit.reload(deposit.id);
    expect(flagged).toMatchObject({ status: 'FLAGGED', flagReason: REASON.riskRejected });
    return flagged;
  }

  it('settles an unconverted FLAGGED deposit at the current rate, with events, ledger and audit', async () => {
    const merchant = await kit.merchant();
    const deposit = await lateDeposit(merchant);
    const current = await kit.rate('USDC');

    const resolved = await services.operator.resolveDeposit(em(), ACTOR, deposit.id, 'settle');
    expect(resolved).toMatchObject({ status: 'PENDING_FX', flagReason: null, rateId: current.id });
    expect(await services.settlement.settle(em(), deposit.id)).toBe('SETTLED');

    const settled = await kit.reload(deposit.id);
    expect(settled.amountAsset).toBe(
      dec('15000').times(current.inverseRate).toDecimalPlaces(6, Dec.ROUND_DOWN).toFixed(6),
    );
    expect((await kit.events(deposit.id)).map((e) => e.kind)).toEqual([
      'deposit.flagged',
      'deposit.created',
      'deposit.settled',
    ]);
    const kinds = (await ledgerOf(deposit.id)).map(
      (p) => `${p.kind} ${p.direction} ${p.account_id}`,
    );
    expect(kinds).toEqual(
      expect.arrayContaining([
        'deposit_received CREDIT operator:ngn_suspense',
        'deposit_hold DEBIT operator:ngn_suspense',
        'deposit_hold CREDIT operator:ngn_clearing',
        'deposit_fx DEBIT operator:ngn_clearing',
        `deposit_fx CREDIT merchant:${merchant}:usd_available`,
      ]),
    );
    const [entry] = await auditOf(deposit.id);
    expect(entry).toMatchObject({
      actor: ACTOR,
      action: 'deposit.resolve_settle',
      targetType: 'deposit',
      before: { status: 'FLAGGED', flag_reason: REASON.afterOnrampExpiry },
      after: { status: 'PENDING_FX', flag_reason: null, rate_id: current.id },
    });
    await expectLedgerClean();
  });

  it('returns an unconverted FLAGGED deposit to its sender: RETURNING, NGN owed back, audited', async () => {
    const merchant = await kit.merchant();
    const deposit = await lateDeposit(merchant, '20000');
    const resolved = await services.operator.resolveDeposit(em(), ACTOR, deposit.id, 'return');
    expect(resolved).toMatchObject({ status: 'RETURNING', flagReason: null });
    expect((await kit.events(deposit.id)).map((e) => e.kind)).toEqual([
      'deposit.flagged',
      'deposit.returning',
    ]);
    const postings = await ledgerOf(deposit.id);
    expect(postings.filter((p) => p.kind === 'deposit_hold')).toEqual([
      {
        kind: 'deposit_hold',
        account_id: 'operator:ngn_returns',
        direction: 'CREDIT',
        amount: '20000.000000',
      },
      {
        kind: 'deposit_hold',
        account_id: 'operator:ngn_suspense',
        direction: 'DEBIT',
        amount: '20000.000000',
      },
    ]);
    expect((await auditOf(deposit.id))[0]).toMatchObject({
      action: 'deposit.resolve_return',
      before: { status: 'FLAGGED' },
      after: { status: 'RETURNING' },
    });
    // Resolving twice: refused, nothing written.
    await expect(
      services.operator.resolveDeposit(em(), ACTOR, deposit.id, 'settle'),
    ).rejects.toMatchObject({
      code: 'invalid_parameter',
      message: expect.stringMatching(/Only FLAGGED/),
    });
    expect(await auditOf(deposit.id)).toHaveLength(1);
    await expectLedgerClean();
  });

  it('settles a deposit FLAGGED after FX: unwinds the held USD, converts again, pays out on-chain', async () => {
    const merchant = await kit.merchant();
    const deposit = await riskRejectedDeposit(merchant);
    const current = await kit.rate('USDC');

    await services.operator.resolveDeposit(em(), ACTOR, deposit.id, 'settle');
    const pending = await kit.reload(deposit.id);
    expect(pending).toMatchObject({ status: 'PENDING_FX', fxExecutedAt: null, rateId: current.id });
    expect(pending.fxOrderId).toMatch(/^fxo_/);
    expect(await services.settlement.settle(em(), deposit.id)).toBe('PENDING_WITHDRAWAL');
    const [live] = await sql<{ id: string }>(
      "select id from payouts where deposit_id = ? and status = 'PENDING'",
      [deposit.id],
    );
    expect(await services.payouts.send(em(), live.id)).toBe('signed');
    const settled = await eventually(
      async () => {
        await services.payoutSweep.sweep(em(), 'BASE');
        const d = await kit.reload(deposit.id);
        return d.status === 'SETTLED' ? d : undefined;
      },
      20_000,
      200,
    );
    expect(settled.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const payouts = await sql<{ status: string }>(
      'select status from payouts where deposit_id = ? order by created_at',
      [deposit.id],
    );
    expect(payouts.map((p) => p.status)).toEqual(['CANCELLED', 'CONFIRMED']);
    expect((await kit.events(deposit.id)).map((e) => e.kind)).toEqual([
      'deposit.created',
      'deposit.pending_withdrawal',
      'deposit.flagged',
      'deposit.created',
      'deposit.pending_withdrawal',
      'deposit.settled',
    ]);
    const unwind = (await ledgerOf(deposit.id)).filter((p) => p.kind === 'deposit_unwind');
    expect(unwind.map((p) => `${p.direction} ${p.account_id}`).sort()).toEqual([
      'CREDIT operator:ngn_suspense',
      'CREDIT operator:usd_treasury',
      'DEBIT operator:ngn_bank',
      'DEBIT operator:usd_suspense',
    ]);
    expect((await auditOf(deposit.id))[0]).toMatchObject({
      action: 'deposit.resolve_settle',
      before: { status: 'FLAGGED', flag_reason: REASON.riskRejected },
      after: { status: 'PENDING_FX', fx_executed_at: null, amount_asset: expect.any(String) },
    });
    await expectLedgerClean();
  });

  it('returns a deposit FLAGGED after FX: USD unwound, NGN owed back to the sender', async () => {
    const merchant = await kit.merchant();
    const deposit = await riskRejectedDeposit(merchant);
    const resolved = await services.operator.resolveDeposit(em(), ACTOR, deposit.id, 'return');
    expect(resolved).toMatchObject({ status: 'RETURNING', fxExecutedAt: null, amountAsset: null });
    const [returns] = await sql<{ held: string }>(
      `select coalesce(sum(case p.direction when 'CREDIT' then p.amount else -p.amount end), 0)::text as held
         from ledger_postings p join ledger_transactions t on t.id = p.transaction_id
        where t.deposit_id = ? and p.account_id = 'operator:ngn_returns'`,
      [deposit.id],
    );
    expect(Number(returns.held)).toBe(15000);
    await expectLedgerClean();
  });

  it('closes a deposit reversed during settlement only by return, releasing its held USD', async () => {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant, 'EPHEMERAL', undefined, {
      mode: 'AUTO_WITHDRAW',
      asset: 'USDC',
      chain: 'BASE',
      destinationAddress: DESTINATION,
    });
    const deposit = await kit.transfer(onramp.accountNumber, '15000', `REV-${Date.now()}`);
    expect(await services.settlement.settle(em(), deposit.id)).toBe('PENDING_WITHDRAWAL');
    const outcome = await services.operator.recordReversal(em(), ACTOR, deposit.bankReference);
    expect(outcome.deposit).toMatchObject({
      status: 'FLAGGED',
      flagReason: REASON.bankReversalDuringSettlement,
    });
    expect((await auditOf(deposit.id))[0]).toMatchObject({
      action: 'deposit.record_reversal',
      before: { status: 'PENDING_WITHDRAWAL', reversed_at: null },
      after: { status: 'FLAGGED', reversed_at: expect.any(String) },
    });
    // A repeated reversal changes nothing and is not audited again.
    await services.operator.recordReversal(em(), ACTOR, deposit.bankReference);
    expect(await auditOf(deposit.id)).toHaveLength(1);

    await expect(
      services.operator.resolveDeposit(em(), ACTOR, deposit.id, 'settle'),
    ).rejects.toMatchObject({
      code: 'invalid_parameter',
      message: expect.stringMatching(/bank reversed/),
    });
    const closed = await services.operator.resolveDeposit(em(), ACTOR, deposit.id, 'return');
    expect(closed).toMatchObject({ status: 'FAILED', failureReason: REASON.returnedToSender });
    const release = (await ledgerOf(deposit.id)).filter((p) => p.kind === 'deposit_release');
    expect(release.map((p) => `${p.direction} ${p.account_id}`).sort()).toEqual([
      'CREDIT operator:usd_recoveries',
      'DEBIT operator:usd_suspense',
    ]);
    await expectLedgerClean();
  });

  it('settling without a valid rate is refused and writes nothing', async () => {
    const merchant = await kit.merchant();
    const deposit = await lateDeposit(merchant);
    clock.advance((services.config.RATE_TTL_SECONDS + 1) * 1000);
    await expect(
      services.operator.resolveDeposit(em(), ACTOR, deposit.id, 'settle'),
    ).rejects.toMatchObject({ code: 'rate_unavailable' });
    expect(await kit.reload(deposit.id)).toMatchObject({ status: 'FLAGGED' });
    expect(await auditOf(deposit.id)).toEqual([]);
  });

  it('two operators resolving the same deposit at once: one wins, the other is refused', async () => {
    const merchant = await kit.merchant();
    const deposit = await lateDeposit(merchant);
    await kit.rate('USDC');
    const results = await Promise.allSettled([
      services.operator.resolveDeposit(em(), 'cli:a', deposit.id, 'settle'),
      services.operator.resolveDeposit(em(), 'cli:b', deposit.id, 'return'),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
    expect(await auditOf(deposit.id)).toHaveLength(1);
    await expectLedgerClean();
  });

  it('freezing FLAGs new transfers and refuses onramps; unfreezing lets them through; audited once each', async () => {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant);
    const frozen = await services.operator.setMerchantFrozen(em(), ACTOR, merchant, true);
    expect(frozen.status).toBe('FROZEN');
    await services.operator.setMerchantFrozen(em(), ACTOR, merchant, true);
    const flagged = await kit.transfer(onramp.accountNumber, '15000');
    expect(flagged).toMatchObject({ status: 'FLAGGED', flagReason: REASON.merchantFrozen });
    await expect(kit.onramp(merchant)).rejects.toMatchObject({ code: 'merchant_frozen' });

    await services.operator.setMerchantFrozen(em(), ACTOR, merchant, false);
    const next = await kit.onramp(merchant);
    expect((await kit.transfer(next.accountNumber, '15000')).status).toBe('PENDING_FX');
    expect((await auditOf(merchant)).map((e) => [e.action, e.before, e.after])).toEqual([
      [
        'merchant.unfreeze',
        { status: 'FROZEN', name: 'Deposit Co' },
        { status: 'ACTIVE', name: 'Deposit Co' },
      ],
      [
        'merchant.freeze',
        { status: 'ACTIVE', name: 'Deposit Co' },
        { status: 'FROZEN', name: 'Deposit Co' },
      ],
    ]);
    await expect(
      services.operator.setMerchantFrozen(em(), ACTOR, 'mer_unknown', true),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('keys and operator tokens: issued and revoked with audit entries, secrets never in them', async () => {
    const merchant = await kit.merchant();
    const key = await services.operator.issueKey(em(), ACTOR, merchant, KeyEnvironment.Sandbox);
    await services.operator.revokeKey(em(), ACTOR, key.apiKey);
    const token = await services.operator.issueOperatorToken(em(), ACTOR, 'ada');
    const principal = await services.operatorTokens.authenticate(em(), `Bearer ${token.token}`);
    expect(principal).toEqual({ tokenId: token.tokenId, name: 'ada' });
    await services.operator.revokeOperatorToken(em(), ACTOR, token.tokenId);
    await expect(
      services.operatorTokens.authenticate(em(), `Bearer ${token.token}`),
    ).rejects.toMatchObject({ code: 'unauthorized' });
    // A merchant key is never an operator token.
    await expect(
      services.operatorTokens.authenticate(em(), `Bearer ${key.apiKey}`),
    ).rejects.toMatchObject({ code: 'unauthorized' });

    const rows = await sql<{ action: string; text: string }>(
      "select action, (before::text || coalesce(after::text, '')) as text from audit_log where target_id in (?, ?)",
      [key.keyId, token.tokenId],
    );
    expect(rows.map((r) => r.action).sort()).toEqual([
      'api_key.issue',
      'api_key.revoke',
      'operator_token.issue',
      'operator_token.revoke',
    ]);
    const all = JSON.stringify(await sql('select * from audit_log'));
    expect(all).not.toContain(key.apiKey);
    expect(all).not.toContain(token.token);
    // Append-only.
    await expect(sql("update audit_log set actor = 'someone else'")).rejects.toThrow(/append-only/);
    await expect(sql('delete from audit_log')).rejects.toThrow(/append-only/);
  });
});
