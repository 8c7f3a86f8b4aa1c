import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { dec } from '../../src/domain/money';
import { SandboxFxVenue } from '../../src/sandbox/sandbox-fx-venue';
import { SandboxBankTransfers } from '../../src/sandbox/sandbox-bank-transfers';
import { FxPermanentFailure, FxTemporaryFailure } from '../../src/adapters/fx/fx-venue';
import { checkLedger, LEDGER_CHECK_NAMES } from '../../src/reconciliation/ledger-check';
import { createTestDatabase, forgetTestDatabase, openTestOrm } from '../support/db';

const market = {
  name: 'fixed',
  marketRates: async () => ({ USD: dec(1500), USDC: dec(1500), USDT: dec(1501) }),
};

/** Runs statements on one dedicated connection, optionally with triggers (and FKs) off. */
async function onConnection<T>(
  url: string,
  fn: (client: Client) => Promise<T>,
  options: { replica?: boolean } = {},
): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    if (options.replica) await client.query('set session_replication_role = replica');
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function checkWithPg(url: string) {
  return onConnection(url, (client) =>
    checkLedger(async (sql, params) => (await client.query(sql, params)).rows),
  );
}

async function one<T = Record<string, string>>(client: Client, sql: string): Promise<T> {
  const rows = (await client.query(sql)).rows as T[];
  if (rows.length === 0) throw new Error(`no row for: ${sql}`);
  return rows[0];
}

/**
 * A balanced ledger transaction with triggers on: its postings in one statement, as the
 * database requires (LedgerService writes the transaction in that same statement too).
 */
async function post(
  client: Client,
  kind: string,
  depositId: string | null,
  legs: Array<[account: string, direction: 'DEBIT' | 'CREDIT', amount: string]>,
): Promise<string> {
  const id = `ltx_test_${Math.random().toString(36).slice(2)}`;
  await client.query('begin');
  try {
    await client.query(
      `insert into ledger_transactions (id, kind, deposit_id, memo, created_at)
       values ($1, $2, $3, 'test', now())`,
      [id, kind, depositId],
    );
    const inserted = await client.query(
      `insert into ledger_postings (transaction_id, account_id, currency, direction, amount)
       select $1, a.id, a.currency, l.direction, l.amount
         from unnest($2::text[], $3::text[], $4::numeric[]) as l(account_id, direction, amount)
         join ledger_accounts a on a.id = l.account_id`,
      [id, legs.map((l) => l[0]), legs.map((l) => l[1]), legs.map((l) => l[2])],
    );
    if (inserted.rowCount !== legs.length) throw new Error(`no ledger account in ${legs}`);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  }
  return id;
}

async function runCli(databaseUrl: string): Promise<{ code: number; stdout: string }> {
  const root = join(__dirname, '..', '..');
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(root, 'bin', 'onramp.js'), 'ledger', 'check'],
      { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' } },
    );
    return { code: 0, stdout };
  } catch (error) {
    const e = error as { code?: number; stdout?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '' };
  }
}

describe('ledger check', () => {
  let populated: string;
  let merchantA: string;

  it('passes on a clean database (through MikroORM)', async () => {
    const orm = await openTestOrm(await createTestDatabase());
    try {
      const connection = orm.em.getConnection();
      expect(await checkLedger((sql, params) => connection.execute(sql, params))).toEqual([]);
    } finally {
      await orm.close();
    }
  });

  it('passes after real flows: receive, settle, FX failures, flags, reversals, unmatched', async () => {
    populated = await createTestDatabase();
    const orm: MikroORM = await openTestOrm(populated);
    try {
      const clock = new ManualClock('2026-07-01T12:00:00Z');
      let venue: 'ok' | 'temporary' | 'permanent' = 'ok';
      const services: Services = createServices(loadConfig({ RETURN_FEE_NGN: '50' }), clock, {
        // The sandbox bank without a notifier answers at once: RETURNED within sendDue.
        bankTransfers: new SandboxBankTransfers(),
        fxVenue: (em) =>
          venue === 'ok'
            ? new SandboxFxVenue(em)
            : {
                name: 'failing',
                execute: async () => {
                  throw venue === 'temporary'
                    ? new FxTemporaryFailure('test: temporary')
                    : new FxPermanentFailure('test: permanent');
                },
              },
      });
      const em = () => orm.em.fork();
      await services.rates.publish(em(), market);
      const rate = await services.rates.current(em(), { from: 'NGN', to: 'USD' });

      const a = await services.merchants.create(em(), 'Ledger A');
      const b = await services.merchants.create(em(), 'Ledger B');
      merchantA = a.id;
      const throwaway = async (merchantId: string, rateId = rate.id) =>
        (
          await services.onramps.create(em(), merchantId, {
            type: 'THROWAWAY',
            user: { email: 'a@example.com' },
            rateId,
            settlement: { mode: 'MERCHANT_BALANCE' },
          })
        ).onramp;
      const permanent = (
        await services.onramps.create(em(), a.id, {
          type: 'PERMANENT',
          user: { email: 'p@example.com' },
          settlement: { mode: 'MERCHANT_BALANCE' },
        })
      ).onramp;
      const receive = async (accountNumber: string, amountNgn: string, bankReference: string) => {
        const out = await services.ingestion.receive(em(), {
          accountNumber,
          amountNgn,
          bankReference,
        });
        if (out.kind !== 'deposit') throw new Error(`${bankReference} unmatched`);
        return out.deposit;
      };

      // Settled, then a second transfer to the same throwaway (FLAGGED, in suspense).
      const t1 = await throwaway(a.id);
      const settled = await receive(t1.accountNumber, '15000', 'REF-SETTLED');
      expect(settled.status).toBe('PENDING_FX');
      expect(await services.settlement.settle(em(), settled.id)).toBe('SETTLED');
      expect((await receive(t1.accountNumber, '3000', 'REF-SECOND')).status).toBe('FLAGGED');
      // Settled then reversed: the operator absorbs it, the merchant stays credited.
      const t2 = await throwaway(a.id);
      const reversedAfterFx = await receive(t2.accountNumber, '30000.50', 'REF-REV-SETTLED');
      expect(await services.settlement.settle(em(), reversedAfterFx.id)).toBe('SETTLED');
      expect((await services.reversals.reverse(em(), 'REF-REV-SETTLED')).deposit.status).toBe(
        'REVERSED',
      );
      // Left PENDING_FX (clearing), and one reversed while PENDING_FX (to FAILED).
      expect((await receive(permanent.accountNumber, '4500', 'REF-PENDING')).status).toBe(
        'PENDING_FX',
      );
      await receive(permanent.accountNumber, '6000', 'REF-REV-PENDING');
      expect((await services.reversals.reverse(em(), 'REF-REV-PENDING')).deposit.status).toBe(
        'FAILED',
      );
      // Below the minimum: FAILED on arrival (returns); then reversed by the bank too.
      expect((await receive(permanent.accountNumber, '100', 'REF-SMALL')).status).toBe('FAILED');
      await receive(permanent.accountNumber, '200', 'REF-SMALL-REV');
      await services.reversals.reverse(em(), 'REF-SMALL-REV');
      // FX failures: temporary (clearing -> suspense), permanent (clearing -> returns).
      const temp = await receive(permanent.accountNumber, '7000', 'REF-FX-TEMP');
      venue = 'temporary';
      expect(await services.settlement.settle(em(), temp.id)).toBe('FLAGGED');
      const perm = await receive(permanent.accountNumber, '8000', 'REF-FX-PERM');
      venue = 'permanent';
      expect(await services.settlement.settle(em(), perm.id)).toBe('FAILED');
      venue = 'ok';
      // A FLAGGED deposit reversed (suspense -> bank, to FAILED).
      await receive(permanent.accountNumber, '9000', 'REF-FX-TEMP-2');
      venue = 'temporary';
      await services.settlement.settle(
        em(),
        (await receive(permanent.accountNumber, '9100', 'REF-FLAG-REV')).id,
      );
      venue = 'ok';
      expect((await services.reversals.reverse(em(), 'REF-FLAG-REV')).deposit.status).toBe(
        'FAILED',
      );
      // A settled deposit of another merchant, another day.
      clock.set('2026-07-02T09:00:00Z');
      await services.rates.publish(em(), market);
      const nextDay = await services.rates.current(em(), { from: 'NGN', to: 'USD' });
      const t3 = await throwaway(b.id, nextDay.id);
      const other = await receive(t3.accountNumber, '45000', 'REF-B');
      expect(await services.settlement.settle(em(), other.id)).toBe('SETTLED');
      // A transfer to an account number no onramp ever held.
      const unmatched = await services.ingestion.receive(em(), {
        accountNumber: '0000000019',
        amountNgn: '1234.56',
        bankReference: 'REF-UNMATCHED',
      });
      expect(unmatched.kind).toBe('unmatched');

      // On-chain payouts, with no chain configured here: they wait, or give up after an outage.
      const autoWithdraw = async (reference: string) => {
        const onramp = (
          await services.onramps.create(em(), a.id, {
            type: 'THROWAWAY',
            user: { email: 'c@example.com' },
            rateId: (await services.rates.current(em(), { from: 'NGN', to: 'USDC' })).id,
            settlement: {
              mode: 'AUTO_WITHDRAW',
              asset: 'USDC',
              chain: 'BASE',
              destinationAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
            },
          })
        ).onramp;
        const deposit = await receive(onramp.accountNumber, '15000', reference);
        expect(await services.settlement.settle(em(), deposit.id)).toBe('PENDING_WITHDRAWAL');
        return deposit;
      };
      const withdraw = (amount: string) =>
        services.withdrawals.request(em(), a.id, {
          amount,
          asset: 'USDC',
          chain: 'BASE',
          destination_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
        });
      const payoutOf = async (column: 'deposit_id' | 'withdrawal_id', id: string) =>
        (
          await orm.em
            .fork()
            .getConnection()
            .execute<Array<{ id: string }>>(`select id from payouts where ${column} = ?`, [id])
        )[0].id;
      const outage = await autoWithdraw('REF-AUTO-OUTAGE');
      const failedWithdrawal = await withdraw('2.5');
      clock.advance(services.config.CHAIN_OUTAGE_MAX_SECONDS * 1000);
      expect(await services.payouts.send(em(), await payoutOf('deposit_id', outage.id))).toBe(
        'cancelled',
      );
      expect(
        await services.payouts.send(em(), await payoutOf('withdrawal_id', failedWithdrawal.id)),
      ).toBe('cancelled');
      await services.rates.publish(em(), market);
      await autoWithdraw('REF-AUTO');
      await withdraw('5');

      // Returns to the payer: one RETURNED (fee 50 kept), one left RETURNING.
      const payerFlagged = async (bankReference: string) => {
        const onramp = await throwaway(
          a.id,
          (await services.rates.current(em(), { from: 'NGN', to: 'USD' })).id,
        );
        await receive(onramp.accountNumber, '1000', `${bankReference}-FIRST`);
        const out = await services.ingestion.receive(em(), {
          accountNumber: onramp.accountNumber,
          amountNgn: '2500',
          bankReference,
          senderName: 'ADA OBI',
          senderAccount: '0123456789',
          senderBank: '058',
        });
        if (out.kind !== 'deposit') throw new Error(`${bankReference} unmatched`);
        expect(out.deposit.status).toBe('FLAGGED');
        return out.deposit;
      };
      const returned = await payerFlagged('REF-RETURNED');
      await services.returns.returnForMerchant(em(), a.id, returned.id);
      expect(await services.returnSender.sendDue(em())).toBe(1);
      // A bank reversal during returns (API.md "Money leaves only where it should"): before the
      // runner claimed the attempt (REVERSED, CANCELLED), after it claimed it (FLAGGED; the
      // bank then pays it: ngn_paid_twice), and after the return was paid (FLAGGED).
      const sql = <T>(text: string, params: unknown[]) =>
        orm.em.fork().getConnection().execute<T[]>(text, params);
      const cancelled = await payerFlagged('REF-RET-CANCELLED');
      await services.returns.returnForMerchant(em(), a.id, cancelled.id);
      expect((await services.reversals.reverse(em(), 'REF-RET-CANCELLED')).deposit.status).toBe(
        'REVERSED',
      );
      const claimed = await payerFlagged('REF-RET-CLAIMED');
      await services.returns.returnForMerchant(em(), a.id, claimed.id);
      // What the runner's claim does before it calls the bank.
      const [attempt] = await sql<{ id: string }>(
        'update deposit_returns set attempts = attempts + 1 where deposit_id = ? returning id',
        [claimed.id],
      );
      expect((await services.reversals.reverse(em(), 'REF-RET-CLAIMED')).deposit.status).toBe(
        'FLAGGED',
      );
      // Neither is sent (again) after the reversal.
      expect(await services.returnSender.sendDue(em())).toBe(0);
      expect(
        await services.returnOutcomes.apply(em(), attempt.id, { outcome: 'completed' }),
      ).toEqual({ kind: 'applied', depositId: claimed.id, status: 'FLAGGED' });
      const paid = await payerFlagged('REF-RET-PAID');
      await services.returns.returnForMerchant(em(), a.id, paid.id);
      expect(await services.returnSender.sendDue(em())).toBe(1);
      expect((await services.reversals.reverse(em(), 'REF-RET-PAID')).deposit.status).toBe(
        'FLAGGED',
      );
      const returning = await payerFlagged('REF-RETURNING');
      await services.returns.returnForMerchant(em(), a.id, returning.id);

      // Reserves and a liable reversal (v0.3): C holds 10 % and bears its reversals. A hold of
      // 0 days is due at once (released); the others wait 7 days (open, or drawn by a reversal
      // that takes the balance below zero; the next settlement repays it).
      const c = await services.merchants.create(em(), 'Ledger C');
      await services.merchantTerms.setLiability(em(), 'test', c.id, 'merchant');
      const reserve = (holdDays: number) =>
        services.merchantTerms.setReserve(em(), 'test', c.id, { percentBps: 1000, holdDays });
      const settledForC = async (amountNgn: string, reference: string) => {
        const usdRate = await services.rates.current(em(), { from: 'NGN', to: 'USD' });
        const onramp = await throwaway(c.id, usdRate.id);
        const deposit = await receive(onramp.accountNumber, amountNgn, reference);
        expect(await services.settlement.settle(em(), deposit.id)).toBe('SETTLED');
      };
      await reserve(0);
      await settledForC('15000', 'REF-C-RELEASED');
      expect(await services.reserves.releaseDue(em(), 100)).toBe(1);
      await reserve(7);
      await settledForC('3000', 'REF-C-DRAWN');
      await settledForC('30000', 'REF-C-REVERSED');
      const { usdAvailable } = await services.ledger.balance(em(), c.id, new Date(0));
      await services.withdrawals.request(em(), c.id, {
        amount: usdAvailable,
        asset: 'USDC',
        chain: 'BASE',
        destination_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      });
      await services.reversals.reverse(em(), 'REF-C-REVERSED');
      expect((await services.ledger.balance(em(), c.id, new Date(0))).usdAvailable).toMatch(/^-/);
      await settledForC('45000', 'REF-C-REPAYS');
      expect((await services.ledger.balance(em(), c.id, new Date(0))).usdAvailable).toMatch(
        /^[0-9]/,
      );

      expect(await checkWithPg(populated)).toEqual([]);
      const kinds = await orm.em
        .fork()
        .getConnection()
        .execute<Array<{ kind: string }>>('select distinct kind from ledger_transactions');
      expect(kinds.map((k) => k.kind).sort()).toEqual([
        'debt_repayment',
        'deposit_fx',
        'deposit_hold',
        'deposit_paid_twice',
        'deposit_received',
        'deposit_returned',
        'deposit_reversal',
        'merchant_debit',
        'payout_cancelled',
        'reserve_hold',
        'reserve_release',
        'unmatched_transfer',
        'withdrawal_requested',
      ]);
    } finally {
      await orm.close();
    }
  });

  it('the CLI prints the report and exits 0 when the ledger holds', async () => {
    const { code, stdout } = await runCli(populated);
    const report = JSON.parse(stdout);
    expect(report).toEqual({ ok: true, checked: [...LEDGER_CHECK_NAMES], violations: [] });
    expect(code).toBe(0);
  });

  /** A copy of the populated database, left out of the after-all check, broken by `breakIt`. */
  async function brokenCopy(
    breakIt: (client: Client) => Promise<unknown>,
    options: { replica?: boolean } = {},
  ): Promise<{ url: string; invariants: string[]; details: string[] }> {
    const url = await createTestDatabase({ from: populated });
    forgetTestDatabase(url);
    await onConnection(url, breakIt, options);
    const violations = await checkWithPg(url);
    return {
      url,
      invariants: [...new Set(violations.map((v) => v.invariant))],
      details: violations.map((v) => `${v.invariant}: ${v.detail}`),
    };
  }

  const depositId = (client: Client, bankReference: string) =>
    one<{ id: string }>(
      client,
      `select id from deposits where bank_reference = '${bankReference}'`,
    ).then((r) => r.id);
  const txOf = (client: Client, bankReference: string, kind: string) =>
    one<{ id: string }>(
      client,
      `select t.id from ledger_transactions t join deposits d on d.id = t.deposit_id
        where d.bank_reference = '${bankReference}' and t.kind = '${kind}'`,
    ).then((r) => r.id);

  const cases: Array<{
    invariant: string;
    replica?: boolean;
    breakIt: (client: Client) => Promise<unknown>;
    only?: boolean;
  }> = [
    {
      invariant: 'transactions_balance',
      replica: true,
      breakIt: async (c) =>
        c.query(
          `insert into ledger_postings (transaction_id, account_id, currency, direction, amount)
           values ($1, 'operator:usd_treasury', 'USD', 'DEBIT', 1)`,
          [await txOf(c, 'REF-SETTLED', 'deposit_fx')],
        ),
    },
    {
      invariant: 'transactions_have_postings',
      only: true,
      breakIt: (c) =>
        c.query(
          `insert into ledger_transactions (id, kind, memo, created_at)
           values ('ltx_empty', 'adjustment', 'nothing', now())`,
        ),
    },
    {
      invariant: 'postings_reference_rows',
      only: true,
      replica: true,
      breakIt: (c) =>
        c.query(
          `insert into ledger_postings (transaction_id, account_id, currency, direction, amount)
           values ('ltx_ghost', 'operator:usd_treasury', 'USD', 'DEBIT', 1),
                  ('ltx_ghost', 'operator:usd_fx_revenue', 'USD', 'CREDIT', 1)`,
        ),
    },
    {
      invariant: 'events_reference_rows',
      only: true,
      breakIt: (c) =>
        c.query(
          `insert into events (id, kind, merchant_id, snapshot, created_at)
           values ('evt_ghost', 'withdrawal.created', 'mer_ghost', '{}', now())`,
        ),
    },
    {
      invariant: 'posting_currency_matches_account',
      replica: true,
      breakIt: (c) =>
        post(c, 'adjustment', null, [
          ['operator:usd_treasury', 'DEBIT', '5'],
          ['operator:usd_fx_revenue', 'CREDIT', '5'],
        ]).then((id) =>
          c.query(`update ledger_postings set currency = 'NGN' where transaction_id = $1`, [id]),
        ),
    },
    {
      invariant: 'accounts_match_chart',
      only: true,
      breakIt: (c) =>
        c.query(
          `insert into ledger_accounts (id, currency, normal_side, non_negative, balance, updated_at)
           values ('operator:mystery', 'NGN', 'DEBIT', false, null, now())`,
        ),
    },
    {
      invariant: 'accounts_match_chart',
      breakIt: (c) =>
        c.query(
          `update ledger_accounts set normal_side = 'DEBIT' where id = 'operator:usd_fx_revenue'`,
        ),
    },
    {
      invariant: 'maintained_balance_matches_postings',
      breakIt: (c) =>
        c.query(
          `update ledger_accounts set balance = balance + 0.000001 where id like 'merchant:%:usd_available'`,
        ),
    },
    {
      invariant: 'maintained_balance_non_negative',
      breakIt: async (c) => {
        // The database refuses it: only without its constraint can the check be shown to see it.
        const { conname } = await one<{ conname: string }>(
          c,
          `select conname from pg_constraint where conrelid = 'ledger_accounts'::regclass
            and contype = 'c' and pg_get_constraintdef(oid) like '%balance >= %'`,
        );
        await c.query(`alter table ledger_accounts drop constraint ${conname}`);
        await c.query(
          `insert into ledger_accounts (id, merchant_id, currency, normal_side, non_negative, balance, updated_at)
           values ('merchant:${merchantA}:usd_pending_withdrawal', '${merchantA}', 'USD', 'CREDIT', true, -1, now())
           on conflict (id) do update set balance = -1`,
        );
      },
    },
    {
      invariant: 'merchant_balance_matches_deposits',
      only: true,
      breakIt: (c) =>
        post(c, 'adjustment', null, [
          ['operator:usd_treasury', 'DEBIT', '2.5'],
          [`merchant:${merchantA}:usd_available`, 'CREDIT', '2.5'],
        ]),
    },
    {
      // What a merchant owes counts against its balance.
      invariant: 'merchant_balance_matches_deposits',
      breakIt: (c) =>
        c.query(
          `update ledger_accounts set balance = balance + 1 where id like 'merchant:%:usd_owed'`,
        ),
    },
    {
      invariant: 'reserved_matches_holds',
      breakIt: (c) =>
        c.query(
          `update reserve_holds set amount = amount + 1
            where deposit_id = (select id from deposits where bank_reference = 'REF-C-REPAYS')`,
        ),
    },
    {
      invariant: 'reserve_hold_postings_match_holds',
      breakIt: (c) =>
        c.query(
          `delete from reserve_holds
            where deposit_id = (select id from deposits where bank_reference = 'REF-C-REPAYS')`,
        ),
    },
    {
      invariant: 'reserve_release_postings_match_holds',
      breakIt: (c) =>
        c.query(
          `update reserve_holds set released_at = null, release_transaction_id = null
            where deposit_id = (select id from deposits where bank_reference = 'REF-C-RELEASED')`,
        ),
    },
    {
      invariant: 'merchant_debit_postings_match_deposits',
      breakIt: async (c) =>
        post(c, 'merchant_debit', await depositId(c, 'REF-SETTLED'), [
          [`merchant:${merchantA}:usd_available`, 'DEBIT', '1'],
          ['operator:usd_merchant_debits', 'CREDIT', '1'],
        ]),
    },
    {
      invariant: 'reserve_draws_match_debits',
      breakIt: (c) =>
        c.query(
          `update reserve_holds set drawn = 0
            where deposit_id = (select id from deposits where bank_reference = 'REF-C-DRAWN')`,
        ),
    },
    {
      invariant: 'deposit_transactions_name_a_deposit',
      breakIt: (c) =>
        post(c, 'deposit_hold', null, [
          ['operator:ngn_suspense', 'DEBIT', '1'],
          ['operator:ngn_returns', 'CREDIT', '1'],
        ]),
    },
    {
      invariant: 'received_once_per_deposit',
      replica: true,
      breakIt: async (c) => {
        const tx = await txOf(c, 'REF-PENDING', 'deposit_received');
        await c.query('delete from ledger_postings where transaction_id = $1', [tx]);
        await c.query('delete from ledger_transactions where id = $1', [tx]);
      },
    },
    {
      invariant: 'received_postings_match_deposit',
      replica: true,
      breakIt: async (c) =>
        c.query('update ledger_postings set amount = amount + 1 where transaction_id = $1', [
          await txOf(c, 'REF-PENDING', 'deposit_received'),
        ]),
    },
    {
      invariant: 'fx_once_per_converted_deposit',
      breakIt: (c) =>
        c.query(`update deposits set fx_executed_at = now() where bank_reference = 'REF-PENDING'`),
    },
    {
      invariant: 'fx_postings_match_deposit',
      replica: true,
      breakIt: async (c) =>
        c.query(
          `update ledger_postings
              set amount = amount + case account_id when 'operator:usd_fx_revenue' then 0.01 else -0.01 end
            where transaction_id = $1
              and account_id in ('operator:usd_fx_revenue', 'merchant:${merchantA}:usd_available')`,
          [await txOf(c, 'REF-SETTLED', 'deposit_fx')],
        ),
    },
    {
      invariant: 'reversal_once_per_reversed_deposit',
      breakIt: (c) =>
        c.query(`update deposits set reversed_at = now() where bank_reference = 'REF-SETTLED'`),
    },
    {
      invariant: 'reversal_postings_match_deposit',
      replica: true,
      breakIt: async (c) =>
        c.query(
          `update ledger_postings set account_id = 'operator:ngn_returns' where transaction_id = $1
             and account_id = 'operator:ngn_reversal_losses'`,
          [await txOf(c, 'REF-REV-SETTLED', 'deposit_reversal')],
        ),
    },
    {
      invariant: 'deposit_ngn_held_where_status_says',
      only: true,
      breakIt: async (c) => {
        // The NGN of two deposits swaps holding accounts: the totals still add up.
        await post(c, 'deposit_hold', await depositId(c, 'REF-PENDING'), [
          ['operator:ngn_clearing', 'DEBIT', '4500'],
          ['operator:ngn_suspense', 'CREDIT', '4500'],
        ]);
        await post(c, 'deposit_hold', await depositId(c, 'REF-FX-TEMP'), [
          ['operator:ngn_suspense', 'DEBIT', '4500'],
          ['operator:ngn_clearing', 'CREDIT', '4500'],
        ]);
      },
    },
    ...['ngn_clearing', 'ngn_suspense', 'ngn_returns', 'ngn_unmatched'].map((account) => ({
      invariant:
        account === 'ngn_unmatched'
          ? 'ngn_unmatched_matches_transfers'
          : `${account}_matches_deposits`,
      breakIt: (c: Client) =>
        post(c, 'adjustment', null, [
          ['operator:ngn_bank', 'DEBIT', '10'],
          [`operator:${account}`, 'CREDIT', '10'],
        ]),
    })),
    {
      invariant: 'ngn_unmatched_matches_transfers',
      breakIt: (c) =>
        c.query(
          `insert into unmatched_transfers (bank_reference, account_number, amount_ngn, received_at)
           values ('REF-GHOST', '0000000027', 500, now())`,
        ),
    },
    {
      invariant: 'unmatched_transfer_booked_once',
      only: true,
      breakIt: (c) =>
        post(c, 'unmatched_transfer', null, [
          ['operator:ngn_unmatched', 'DEBIT', '1234.56'],
          ['operator:ngn_unmatched', 'CREDIT', '1234.56'],
        ]).then((id) =>
          c.query(`update ledger_transactions set memo = 'REF-UNMATCHED' where id = $1`, [id]),
        ),
      replica: true,
    },
    {
      invariant: 'ngn_bank_matches_deposits',
      breakIt: (c) =>
        post(c, 'adjustment', null, [
          ['operator:ngn_reversal_losses', 'DEBIT', '10'],
          ['operator:ngn_bank', 'CREDIT', '10'],
        ]),
    },
    {
      invariant: 'ngn_reversal_losses_matches_deposits',
      breakIt: (c) =>
        post(c, 'adjustment', null, [
          ['operator:ngn_reversal_losses', 'DEBIT', '10'],
          ['operator:ngn_bank', 'CREDIT', '10'],
        ]),
    },
    {
      invariant: 'daily_volume_matches_deposits',
      only: true,
      breakIt: (c) =>
        c.query(`update deposit_daily_volume set usd = usd + 1 where scope = 'system'`),
    },
    {
      invariant: 'daily_volume_matches_deposits',
      only: true,
      breakIt: (c) =>
        c.query(
          `insert into deposit_daily_volume (scope, day, usd) values ('${merchantA}', '2026-06-30', 3)`,
        ),
    },
    {
      invariant: 'latest_event_matches_status',
      only: true,
      breakIt: async (c) =>
        c.query(`delete from events where deposit_id = $1`, [await depositId(c, 'REF-SECOND')]),
    },
    {
      invariant: 'latest_event_matches_status',
      breakIt: async (c) =>
        c.query(
          `insert into events (id, kind, merchant_id, deposit_id, status, snapshot, created_at)
           select 'evt_test', 'deposit.failed', merchant_id, id, 'FAILED', '{}', now()
             from deposits where bank_reference = 'REF-SECOND'`,
        ),
    },
    {
      invariant: 'event_history_follows_transitions',
      only: true,
      breakIt: async (c) =>
        c.query(
          `insert into events (id, kind, merchant_id, deposit_id, status, snapshot, created_at)
           select 'evt_test', 'deposit.created', merchant_id, id, 'PENDING_FX', '{}', now()
             from deposits where bank_reference = 'REF-PENDING'`,
        ),
    },
    {
      invariant: 'settled_deposits_have_amounts',
      only: true,
      breakIt: async (c) => {
        const { conname } = await one<{ conname: string }>(
          c,
          `select conname from pg_constraint where conrelid = 'deposits'::regclass
            and contype = 'c' and pg_get_constraintdef(oid) like '%settled_at IS NOT NULL%'`,
        );
        await c.query(`alter table deposits drop constraint ${conname}`);
        await c.query(`update deposits set settled_at = null where bank_reference = 'REF-B'`);
      },
    },
    {
      invariant: 'reversed_deposits_have_reversed_at',
      // The one reversed after settlement (a cancelled return's REVERSED needs it in the schema).
      breakIt: (c) =>
        c.query(
          `update deposits set reversed_at = null
            where status = 'REVERSED' and fx_executed_at is not null`,
        ),
    },
    {
      invariant: 'merchant_pending_matches_withdrawals',
      breakIt: (c) =>
        c.query(`update withdrawals set amount = amount + 1 where status = 'PENDING'`),
    },
    {
      invariant: 'usd_payouts_pending_matches_payouts',
      only: true,
      breakIt: (c) =>
        post(c, 'adjustment', null, [
          ['operator:usd_treasury', 'DEBIT', '1'],
          ['operator:usd_payouts_pending', 'CREDIT', '1'],
        ]),
    },
    {
      invariant: 'usd_suspense_matches_payouts',
      only: true,
      breakIt: (c) =>
        post(c, 'adjustment', null, [
          ['operator:usd_treasury', 'DEBIT', '1'],
          ['operator:usd_suspense', 'CREDIT', '1'],
        ]),
    },
    {
      invariant: 'usd_recoveries_matches_releases',
      only: true,
      breakIt: async (c) => {
        await c.query(
          `insert into ledger_accounts (id, merchant_id, currency, normal_side, non_negative, balance, updated_at)
           values ('operator:usd_recoveries', null, 'USD', 'CREDIT', false, null, now())
           on conflict (id) do nothing`,
        );
        await post(c, 'adjustment', null, [
          ['operator:usd_treasury', 'DEBIT', '1'],
          ['operator:usd_recoveries', 'CREDIT', '1'],
        ]);
      },
    },
    {
      // A release that names no payout (nor deposit).
      invariant: 'suspense_leaves_by_its_payout',
      breakIt: (c) =>
        post(c, 'deposit_release', null, [
          ['operator:usd_treasury', 'DEBIT', '1'],
          ['operator:usd_fx_revenue', 'CREDIT', '1'],
        ]),
    },
    {
      invariant: 'payout_per_converted_auto_withdraw_deposit',
      only: true,
      breakIt: (c) =>
        c.query(
          `update payouts set amount_base_units = amount_base_units + 1
            where deposit_id is not null and status = 'PENDING'`,
        ),
    },
    {
      invariant: 'payout_status_matches_owner',
      breakIt: (c) =>
        c.query(
          `update payouts set status = 'CANCELLED', cancel_reason = 'test'
            where withdrawal_id is not null and status = 'PENDING'`,
        ),
    },
    {
      invariant: 'withdrawal_requested_once',
      only: true,
      replica: true,
      breakIt: (c) =>
        c.query(
          `update ledger_transactions set payout_id = null where kind = 'withdrawal_requested'`,
        ),
    },
    {
      invariant: 'payout_outcome_booked_once',
      only: true,
      replica: true,
      breakIt: (c) =>
        c.query(
          `update ledger_transactions set kind = 'payout_sent' where kind = 'payout_cancelled'`,
        ),
    },
    {
      // The RETURNING deposit has no open attempt left for the runner.
      invariant: 'return_attempts_match_status',
      only: true,
      breakIt: (c) =>
        c.query(`update deposit_returns set status = 'FAILED' where status in ('PENDING', 'SENT')`),
    },
    {
      invariant: 'returned_postings_match_return',
      breakIt: (c) =>
        c.query(`update deposit_returns set fee_ngn = fee_ngn + 1 where status = 'COMPLETED'`),
    },
    {
      invariant: 'ngn_return_fees_matches_returns',
      breakIt: (c) =>
        post(c, 'adjustment', null, [
          ['operator:ngn_reversal_losses', 'DEBIT', '1'],
          ['operator:ngn_return_fees', 'CREDIT', '1'],
        ]),
    },
    {
      invariant: 'operator_accounts_not_below_zero',
      breakIt: (c) =>
        post(c, 'adjustment', null, [
          ['operator:ngn_return_fees', 'DEBIT', '1000'],
          ['operator:ngn_bank', 'CREDIT', '1000'],
        ]),
    },
    {
      invariant: 'paid_twice_postings_match_return',
      only: true,
      replica: true,
      breakIt: (c) =>
        c.query(
          `update ledger_transactions set kind = 'adjustment' where kind = 'deposit_paid_twice'`,
        ),
    },
    {
      invariant: 'ngn_paid_twice_matches_returns',
      breakIt: (c) =>
        post(c, 'adjustment', null, [
          ['operator:ngn_paid_twice', 'DEBIT', '1'],
          ['operator:ngn_bank', 'CREDIT', '1'],
        ]),
    },
    {
      invariant: 'hot_wallet_nonces_contiguous',
      only: true,
      breakIt: (c) =>
        c.query(
          `insert into hot_wallet_nonces (chain, address, next_nonce, updated_at)
           values ('BASE', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 7, now())`,
        ),
    },
  ];

  it('has a breaking case for every check', () => {
    expect(new Set(cases.map((c) => c.invariant))).toEqual(new Set(LEDGER_CHECK_NAMES));
  });

  it.each(cases.map((c, i) => [`${c.invariant} #${i}`, c] as const))(
    'names the broken invariant: %s',
    async (_label, { invariant, replica, breakIt, only }) => {
      const { invariants, details } = await brokenCopy(breakIt, { replica });
      expect(invariants).toContain(invariant);
      // Cases marked `only` break exactly one thing; the check must not blame others.
      if (only) expect(invariants).toEqual([invariant]);
      expect(details.length).toBeGreaterThan(0);
    },
  );

  it('holds every operator account at zero or above but ngn_bank, usd_treasury and usd_fx_revenue', async () => {
    // The bank pays out NGN the ledger never held (the operator's own money): other checks
    // object to this one, the floor does not.
    const bank = await brokenCopy((c) =>
      post(c, 'adjustment', null, [
        ['operator:ngn_reversal_losses', 'DEBIT', '900000000'],
        ['operator:ngn_bank', 'CREDIT', '900000000'],
      ]),
    );
    expect(bank.invariants).toContain('ngn_bank_matches_deposits');
    expect(bank.invariants).not.toContain('operator_accounts_not_below_zero');
    // A conversion filled below the USD owed, paid out: the treasury and the revenue go below.
    const usd = await brokenCopy((c) =>
      post(c, 'adjustment', null, [
        ['operator:usd_fx_revenue', 'DEBIT', '900000000'],
        ['operator:usd_treasury', 'CREDIT', '900000000'],
      ]),
    );
    expect(usd.invariants).not.toContain('operator_accounts_not_below_zero');
    // A floored account below zero is named, with its balance and currency.
    const fees = await brokenCopy((c) =>
      post(c, 'adjustment', null, [
        ['operator:ngn_return_fees', 'DEBIT', '1000'],
        ['operator:ngn_bank', 'CREDIT', '1000'],
      ]),
    );
    expect(fees.details).toContain(
      'operator_accounts_not_below_zero: account operator:ngn_return_fees holds -950.000000 NGN (below zero)',
    );
    const { code, stdout } = await runCli(fees.url);
    expect(code).toBe(1);
    expect(JSON.parse(stdout).violations).toContainEqual({
      invariant: 'operator_accounts_not_below_zero',
      detail: 'account operator:ngn_return_fees holds -950.000000 NGN (below zero)',
    });
  });

  it('the CLI exits 1 and lists the violations when the ledger does not hold', async () => {
    const { url } = await brokenCopy((c) =>
      c.query(`update deposit_daily_volume set usd = usd + 1 where scope = 'system'`),
    );
    const { code, stdout } = await runCli(url);
    const report = JSON.parse(stdout);
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    expect(report.checked).toEqual([...LEDGER_CHECK_NAMES]);
    // One per day of flows: the system row of each is off by one.
    expect(report.violations).toEqual([
      { invariant: 'daily_volume_matches_deposits', detail: expect.stringContaining('system') },
      { invariant: 'daily_volume_matches_deposits', detail: expect.stringContaining('system') },
      { invariant: 'daily_volume_matches_deposits', detail: expect.stringContaining('system') },
    ]);
  });
});

describe('the database refuses', () => {
  let url: string;
  beforeAll(async () => {
    url = await createTestDatabase();
    await onConnection(url, async (c) => {
      await c.query(
        `insert into merchants (id, name, status, created_at, updated_at)
         values ('mer_refuse', 'Refuse', 'ACTIVE', now(), now())`,
      );
      for (const [id, currency, side, nonNegative] of [
        ['operator:usd_treasury', 'USD', 'DEBIT', false],
        ['merchant:mer_refuse:usd_available', 'USD', 'CREDIT', true],
      ] as const) {
        await c.query(
          `insert into ledger_accounts (id, merchant_id, currency, normal_side, non_negative, balance, updated_at)
           values ($1, $2, $3, $4, $5, $6, now())`,
          [
            id,
            nonNegative ? 'mer_refuse' : null,
            currency,
            side,
            nonNegative,
            nonNegative ? 0 : null,
          ],
        );
      }
    });
  });

  it('an unbalanced ledger transaction, at the statement that writes its postings', async () => {
    await onConnection(url, async (c) => {
      await c.query('begin');
      await c.query(
        `insert into ledger_transactions (id, kind, created_at) values ('ltx_unbalanced', 'adjustment', now())`,
      );
      // A transaction's postings all arrive in one statement, which must balance on its own.
      await expect(
        c.query(
          `insert into ledger_postings (transaction_id, account_id, currency, direction, amount)
           values ('ltx_unbalanced', 'operator:usd_treasury', 'USD', 'DEBIT', 10),
                  ('ltx_unbalanced', 'merchant:mer_refuse:usd_available', 'USD', 'CREDIT', 9)`,
        ),
      ).rejects.toThrow(/does not balance in USD/);
      await c.query('rollback');
    });
    expect(
      await onConnection(url, (c) =>
        c.query(`select 1 from ledger_transactions where id = 'ltx_unbalanced'`),
      ).then((r) => r.rowCount),
    ).toBe(0);
  });

  it('a posting that takes a merchant balance below zero', async () => {
    await onConnection(url, async (c) => {
      await expect(
        post(c, 'adjustment', null, [
          ['merchant:mer_refuse:usd_available', 'DEBIT', '0.000001'],
          ['operator:usd_treasury', 'CREDIT', '0.000001'],
        ]),
      ).rejects.toMatchObject({ code: '23514' });
    });
    expect(await checkWithPg(url)).toEqual([]);
  });
});
