import type { MikroORM } from '@mikro-orm/postgresql';
import type { ReturnNotification } from '../../src/adapters/bank/bank-adapter';
import { SandboxBankTransfers } from '../../src/sandbox/sandbox-bank-transfers';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { checkLedger } from '../../src/reconciliation/ledger-check';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import { eventually } from '../support/stack';

const PAYER = { senderName: 'ADA OBI', senderAccount: '0123456789', senderBank: '058' };

/**
 * A return's outcome learned twice (the bank's notification and the runner's next call for the
 * same reference) applies once: one RETURNED, one `deposit_returned` posting, a clean ledger.
 */
describe('return outcomes: notification and polled answer share one apply (real PostgreSQL)', () => {
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;
  /** What the sandbox bank notified; `lose` drops them (a lost notification). */
  const notified: ReturnNotification[] = [];
  let lose = false;
  let serial = 0;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock('2026-10-01T09:00:00Z');
    const bank = new SandboxBankTransfers({
      delayMs: 0,
      notify: async (event) => {
        if (lose) throw new Error('test: notification lost');
        notified.push(event);
      },
    });
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
  const attemptOf = async (depositId: string) =>
    (
      await sql<{ id: string; status: string; failure_reason: string | null }>(
        'select id, status, failure_reason from deposit_returns where deposit_id = ?',
        [depositId],
      )
    )[0];
  const postings = async (depositId: string) =>
    (
      await sql<{ n: string }>(
        `select count(*)::text as n from ledger_transactions
          where deposit_id = ? and kind = 'deposit_returned'`,
        [depositId],
      )
    )[0].n;
  const expectLedgerClean = async () => {
    const connection = orm.em.getConnection();
    expect(await checkLedger((text, params) => connection.execute(text, params))).toEqual([]);
  };
  const notificationFor = (reference: string) =>
    eventually(async () => notified.find((n) => n.reference === reference), 5000, 10);

  /** A merchant's FLAGGED deposit, returned by the merchant and sent: its attempt is SENT. */
  async function sentReturn(ngn = '20000') {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant);
    clock.advance((services.config.ONRAMP_TTL_SECONDS + 1) * 1000);
    serial += 1;
    const outcome = await services.ingestion.receive(em(), {
      accountNumber: onramp.accountNumber,
      amountNgn: ngn,
      bankReference: `OUT-${Date.now()}-${serial}`,
      ...PAYER,
    });
    if (outcome.kind !== 'deposit') throw new Error('unmatched');
    await services.returns.returnForMerchant(em(), merchant, outcome.deposit.id);
    expect(await services.returnSender.sendDue(em())).toBe(1);
    const attempt = await attemptOf(outcome.deposit.id);
    expect(attempt.status).toBe('SENT'); // the bank only accepted it
    expect(await kit.reload(outcome.deposit.id)).toMatchObject({ status: 'RETURNING' });
    return { merchant, depositId: outcome.deposit.id, reference: attempt.id };
  }

  it('notification first, then the polled answer: applied once', async () => {
    const { depositId, reference } = await sentReturn();
    const event = await notificationFor(reference);
    expect(event).toEqual({ type: 'transfer.return_completed', reference });
    expect(await services.returnOutcomes.notified(em(), event)).toEqual({
      kind: 'applied',
      depositId,
      status: 'RETURNED',
    });
    clock.advance(31_000); // the SENT attempt is due again: the sweep asks the bank
    expect(await services.returnSender.sendDue(em())).toBe(0); // COMPLETED: not due any more
    expect(await services.returnOutcomes.notified(em(), event)).toMatchObject({
      kind: 'unchanged',
      status: 'RETURNED',
    });
    expect((await attemptOf(depositId)).status).toBe('COMPLETED');
    expect(await postings(depositId)).toBe('1');
    expect((await kit.events(depositId)).map((e) => e.kind)).toEqual([
      'deposit.flagged',
      'deposit.returning',
      'deposit.returned',
    ]);
    await expectLedgerClean();
  });

  it('a lost notification: the polled answer applies it, the late notification changes nothing', async () => {
    lose = true;
    const { depositId, reference } = await sentReturn();
    await new Promise((resolve) => setTimeout(resolve, 50)); // the bank settled it meanwhile
    lose = false;
    clock.advance(31_000);
    expect(await services.returnSender.sendDue(em())).toBe(1);
    expect(await kit.reload(depositId)).toMatchObject({ status: 'RETURNED' });
    expect(
      await services.returnOutcomes.notified(em(), {
        type: 'transfer.return_completed',
        reference,
      }),
    ).toMatchObject({ kind: 'unchanged', depositId, status: 'RETURNED' });
    expect(await postings(depositId)).toBe('1');
    await expectLedgerClean();
  });

  it('concurrent notifications and a poll for one reference: one posting', async () => {
    const { depositId, reference } = await sentReturn();
    const event = await notificationFor(reference);
    clock.advance(31_000);
    const results = await Promise.all([
      services.returnOutcomes.notified(em(), event),
      services.returnOutcomes.notified(em(), event),
      services.returnOutcomes.notified(em(), event),
      services.returnSender.sendDue(em()),
    ]);
    const kinds = results.slice(0, 3).map((r) => (typeof r === 'number' ? r : r.kind));
    expect(kinds.filter((k) => k === 'applied').length).toBeLessThanOrEqual(1);
    expect(await kit.reload(depositId)).toMatchObject({ status: 'RETURNED' });
    expect(await postings(depositId)).toBe('1');
    expect((await kit.events(depositId)).filter((e) => e.kind === 'deposit.returned')).toHaveLength(
      1,
    );
    await expectLedgerClean();
  });

  it('a failure notification: RETURN_FAILED with the reason; a completion after it changes nothing', async () => {
    const { depositId, reference } = await sentReturn();
    await notificationFor(reference); // the sandbox's own completion, not applied here
    const failed = await services.returnOutcomes.notified(em(), {
      type: 'transfer.return_failed',
      reference,
      reason: 'Beneficiary account closed',
    });
    expect(failed).toEqual({ kind: 'applied', depositId, status: 'RETURN_FAILED' });
    expect(await attemptOf(depositId)).toMatchObject({
      status: 'FAILED',
      failure_reason: 'Beneficiary account closed',
    });
    expect(
      await services.returnOutcomes.notified(em(), {
        type: 'transfer.return_completed',
        reference,
      }),
    ).toMatchObject({ kind: 'unchanged', status: 'RETURN_FAILED' });
    expect(await postings(depositId)).toBe('0');
    await expectLedgerClean();
  });

  it('a runner restart forgets the sandbox bank: the new process treats the reference as new and completes it', async () => {
    lose = true;
    const { depositId, reference } = await sentReturn();
    await new Promise((resolve) => setTimeout(resolve, 50));
    lose = false;
    // Another process: a fresh sandbox bank that notifies in-process, as the runner's default.
    const restarted: { services?: Services } = {};
    const freshBank = new SandboxBankTransfers({
      delayMs: 0,
      notify: async (event, notifyEm) => {
        await restarted.services!.returnOutcomes.notified(notifyEm, event);
      },
    });
    restarted.services = createServices(loadConfig({ RETURN_FEE_NGN: '100' }), clock, {
      bankTransfers: freshBank,
    });
    clock.advance(31_000);
    expect(await restarted.services.returnSender.sendDue(em())).toBe(1);
    expect(freshBank.transfers.map((t) => t.reference)).toEqual([reference]);
    await eventually(
      async () => ((await kit.reload(depositId)).status === 'RETURNED' ? true : undefined),
      5000,
      20,
    );
    expect(await postings(depositId)).toBe('1');
    await expectLedgerClean();
  });

  it('an unknown reference is reported as unknown and touches nothing', async () => {
    expect(
      await services.returnOutcomes.notified(em(), {
        type: 'transfer.return_completed',
        reference: 'ret_nobody',
      }),
    ).toEqual({ kind: 'unknown' });
  });
});
