import type { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { SandboxBankTransfers } from '../../src/sandbox/sandbox-bank-transfers';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { checkLedger } from '../../src/reconciliation/ledger-check';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import { seededRandom, testSeed } from '../support/seeded-random';

const PAYER = { senderName: 'ADA OBI', senderAccount: '0123456789', senderBank: '058' };

/**
 * The reversal and the runner's claim serialise on the attempt's row lock: a return is either
 * cancelled and never sent, or sent and the deposit FLAGGED; never both, never neither.
 */
describe('a bank reversal racing the return sender (real PostgreSQL)', () => {
  let url: string;
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  let bank: SandboxBankTransfers;
  let kit: ReturnType<typeof depositKit>;
  let serial = 0;

  beforeAll(async () => {
    url = await createTestDatabase();
    orm = await openTestOrm(url);
    clock = new ManualClock('2026-10-01T09:00:00Z');
    // No notifier: the bank pays at once and answers `completed` to the runner's call.
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
  const attemptOf = async (depositId: string) =>
    (
      await sql<{ id: string; status: string; attempts: number }>(
        'select id, status, attempts from deposit_returns where deposit_id = ?',
        [depositId],
      )
    )[0];

  /** A merchant's FLAGGED deposit the merchant asked to return: RETURNING, not yet sent. */
  async function returningDeposit() {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant);
    clock.advance((services.config.ONRAMP_TTL_SECONDS + 1) * 1000);
    serial += 1;
    const bankReference = `RACE-${Date.now()}-${serial}`;
    const outcome = await services.ingestion.receive(em(), {
      accountNumber: onramp.accountNumber,
      amountNgn: '20000',
      bankReference,
      ...PAYER,
    });
    if (outcome.kind !== 'deposit') throw new Error('unmatched');
    await services.returns.returnForMerchant(em(), merchant, outcome.deposit.id);
    return { depositId: outcome.deposit.id, bankReference };
  }

  it('a claim committed first is seen by the reversal, which waits for it: FLAGGED, the return not cancelled', async () => {
    const { depositId, bankReference } = await returningDeposit();
    const { id } = await attemptOf(depositId);
    const runner = new Client({ connectionString: url });
    await runner.connect();
    try {
      // The runner's claim, holding the attempt's row until it commits.
      await runner.query('begin');
      await runner.query(
        'update deposit_returns set attempts = attempts + 1 where id = $1 and status = $2',
        [id, 'PENDING'],
      );
      let settled = false;
      const reversal = services.reversals.reverse(em(), bankReference).finally(() => {
        settled = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(settled).toBe(false); // waiting on the attempt's row lock
      await runner.query('commit');
      expect((await reversal).deposit).toMatchObject({
        status: 'FLAGGED',
        flagReason: 'Reversal during return',
      });
    } finally {
      await runner.end();
    }
    expect(await attemptOf(depositId)).toMatchObject({ status: 'PENDING', attempts: 1 });
    // Its fate at the bank is unknown: the runner does not call the bank again for it.
    clock.advance(31_000);
    expect(await services.returnSender.sendDue(em())).toBe(0);
    expect(bank.transfers.filter((t) => t.depositId === depositId)).toEqual([]);
  });

  it('raced at random (seeded): cancelled and never sent, or sent once and FLAGGED', async () => {
    const seed = testSeed();
    const random = seededRandom(seed);
    const outcomes = new Set<string>();
    for (let i = 0; i < 16; i += 1) {
      const { depositId, bankReference } = await returningDeposit();
      const pause = () => new Promise((resolve) => setTimeout(resolve, random.int(0, 15)));
      await Promise.all([
        pause().then(() => services.returnSender.sendDue(em())),
        pause().then(() => services.reversals.reverse(em(), bankReference)),
      ]);
      const deposit = await kit.reload(depositId);
      const attempt = await attemptOf(depositId);
      const paid = bank.transfers.filter((t) => t.depositId === depositId);
      const at = `seed ${seed}, round ${i}`;
      if (attempt.status === 'CANCELLED') {
        expect({ at, status: deposit.status, attempts: attempt.attempts, paid }).toEqual({
          at,
          status: 'REVERSED',
          attempts: 0,
          paid: [],
        });
      } else {
        // Sent: completed by the bank before or after the reversal, FLAGGED either way.
        expect({ at, status: deposit.status, attempt: attempt.status, paid: paid.length }).toEqual({
          at,
          status: 'FLAGGED',
          attempt: 'COMPLETED',
          paid: 1,
        });
        expect(deposit.flagReason).toBe('Reversal during return');
      }
      outcomes.add(attempt.status);
    }
    const connection = orm.em.getConnection();
    expect(await checkLedger((text, params) => connection.execute(text, params))).toEqual([]);
    if (outcomes.size < 2) console.log(`seed ${seed}: only ${[...outcomes].join()} happened`);
  });
});
