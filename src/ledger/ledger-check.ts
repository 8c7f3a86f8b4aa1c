import { countsAgainstLimits } from '../domain/deposit-rules';
import {
  DEPOSIT_STATUSES,
  INITIAL_STATUSES,
  type DepositStatus,
} from '../domain/deposit-state-machine';
import {
  merchantAccount,
  ngnHoldingOf,
  OPERATOR,
  type LedgerAccountSpec,
  type MerchantBucket,
} from '../domain/ledger';
import { EVENT_CHECKS } from './ledger-check-events';
import { PAYOUT_CHECKS } from './ledger-check-payouts';
import { list, lit, merchantAccountIdSql, NET_CREDIT, operatorBalance } from './ledger-check-sql';

/**
 * Reconciles the ledger with the deposits it books, in SQL only, so it runs wherever a query
 * function does: the operator CLI (`onramp ledger check`, through MikroORM), the test suites
 * (a plain `pg` Client after every test file), or psql by hand.
 *
 * Every check is one `select` answering a row per violation; all of them run as ONE statement
 * (`union all`), so they read one snapshot even in READ COMMITTED and against a live system:
 * a transfer being booked while the check runs is either wholly seen or not at all. The SQL
 * takes no parameters and has no question mark in it, so MikroORM's `?` placeholder
 * expansion and pg's `$1` numbering both leave it alone. Amounts compare as `numeric`.
 */

export interface LedgerViolation {
  invariant: string;
  detail: string;
}

export type LedgerQuery = (sql: string, params?: unknown[]) => Promise<any[]>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface LedgerCheck {
  name: string;
  /** One sentence: what must hold. */
  description: string;
  /** A `select` with one text column `detail`, one row per violation. */
  sql: string;
}

/** Violations reported per check; the rest are summarised in one more row. */
export const MAX_DETAILS_PER_CHECK = 100;

const BANK = OPERATOR.ngnBank.id;
const LOSSES = OPERATOR.ngnReversalLosses.id;
const UNMATCHED = OPERATOR.ngnUnmatched.id;
const BUCKETS: readonly MerchantBucket[] = ['usd_available', 'usd_pending_withdrawal'];

interface Holding {
  account: LedgerAccountSpec;
  /** The (unconverted) statuses whose NGN the account holds. */
  statuses: DepositStatus[];
}

/** The NGN holding accounts, from the domain's `ngnHoldingOf`. */
const HOLDINGS: readonly Holding[] = (() => {
  const byAccount = new Map<string, Holding>();
  for (const status of DEPOSIT_STATUSES) {
    const account = ngnHoldingOf(status, false);
    if (!account) continue;
    const holding = byAccount.get(account.id) ?? { account, statuses: [] };
    holding.statuses.push(status);
    byAccount.set(account.id, holding);
  }
  return [...byAccount.values()];
})();
const HOLDING_IDS = HOLDINGS.map((h) => h.account.id);

/** SQL: the account holding the NGN of a deposit in `status` (null once converted). */
function holdingOfSql(status: string, converted: string): string {
  const arms = HOLDINGS.map(
    (h) => `when ${status} in (${list(h.statuses)}) then ${lit(h.account.id)}`,
  );
  return `(case when ${converted} then null::text ${arms.join(' ')} else null::text end)`;
}

const COUNTED = DEPOSIT_STATUSES.filter((s) => countsAgainstLimits(s));
const DEPOSIT_KINDS = [
  'deposit_received',
  'deposit_hold',
  'deposit_fx',
  'deposit_reversal',
  'deposit_unwind',
  'deposit_release',
];

function merchantChart(): string {
  // merchant:<merchant id>:<bucket>, derived from the domain's own account factory.
  return BUCKETS.map((bucket) => {
    const spec = merchantAccount('', bucket);
    return `(${lit(bucket)}, ${lit(spec.currency)}, ${lit(spec.normalSide)}, ${spec.nonNegative})`;
  }).join(', ');
}

function operatorChart(): string {
  return Object.values(OPERATOR)
    .map((a) => `(${lit(a.id)}, ${lit(a.currency)}, ${lit(a.normalSide)}, ${a.nonNegative})`)
    .join(', ');
}

function holdingTotalCheck({ account, statuses }: Holding): LedgerCheck {
  const short = account.id.replace(/^operator:/, '');
  return {
    name: `${short}_matches_deposits`,
    description: `${account.id} holds the NGN of the unconverted, unreversed deposits in ${statuses.join(', ')}.`,
    sql: `
      select format('%s holds %s NGN but its deposits (%s, unconverted, unreversed) sum to %s',
                    ${lit(account.id)}, a.actual, ${lit(statuses.join('/'))}, e.expected) as detail
        from ${operatorBalance(account.id, account.normalSide)} a,
             (select coalesce(sum(d.amount_ngn), 0) as expected from deposits d
               where d.status in (${list(statuses)})
                 and d.fx_executed_at is null and d.reversed_at is null) e
       where a.actual <> e.expected`,
  };
}

export const LEDGER_CHECKS: readonly LedgerCheck[] = [
  {
    name: 'transactions_balance',
    description: 'Every ledger transaction balances per currency: debits equal credits.',
    sql: `
      select format('transaction %s (%s) does not balance in %s: debits %s, credits %s',
                    t.id, t.kind, p.currency,
                    coalesce(sum(p.amount) filter (where p.direction = 'DEBIT'), 0),
                    coalesce(sum(p.amount) filter (where p.direction = 'CREDIT'), 0)) as detail
        from ledger_postings p join ledger_transactions t on t.id = p.transaction_id
       group by t.id, t.kind, p.currency
      having coalesce(sum(p.amount) filter (where p.direction = 'DEBIT'), 0)
          <> coalesce(sum(p.amount) filter (where p.direction = 'CREDIT'), 0)`,
  },
  {
    name: 'transactions_have_postings',
    description: 'Every ledger transaction moves something (has at least one posting).',
    sql: `
      select format('transaction %s (%s) has no postings', t.id, t.kind) as detail
        from ledger_transactions t
       where not exists (select 1 from ledger_postings p where p.transaction_id = t.id)`,
  },
  {
    // The database checks it on insert (no foreign keys: the postings trigger does).
    name: 'postings_reference_rows',
    description: 'Every posting names an existing ledger transaction and ledger account.',
    sql: `
      select format('posting %s names transaction %s%s and account %s%s',
                    p.id, p.transaction_id, case when t.id is null then ' (missing)' else '' end,
                    p.account_id, case when a.id is null then ' (missing)' else '' end) as detail
        from ledger_postings p
        left join ledger_transactions t on t.id = p.transaction_id
        left join ledger_accounts a on a.id = p.account_id
       where t.id is null or a.id is null`,
  },
  {
    name: 'posting_currency_matches_account',
    description: "Every posting is in its account's currency.",
    sql: `
      select format('posting %s of transaction %s is in %s but account %s is in %s',
                    p.id, p.transaction_id, p.currency, a.id, a.currency) as detail
        from ledger_postings p join ledger_accounts a on a.id = p.account_id
       where p.currency <> a.currency`,
  },
  {
    name: 'accounts_match_chart',
    description:
      'Every ledger account is an operator account or merchant:<id>:<bucket>, with the currency, normal side and balance rule the domain gives it.',
    sql: `
      select case
               when op.id is null and mc.bucket is null
                 then format('account %s is not in the chart of accounts', a.id)
               else format('account %s is %s %s non_negative=%s merchant=%s; the chart says %s %s non_negative=%s merchant=%s',
                           a.id, a.currency, a.normal_side, a.non_negative, coalesce(a.merchant_id, '-'),
                           coalesce(op.currency, mc.currency), coalesce(op.normal_side, mc.normal_side),
                           coalesce(op.non_negative, mc.non_negative), coalesce(m.merchant_id, '-'))
             end as detail
        from ledger_accounts a
        left join (values ${operatorChart()}) op(id, currency, normal_side, non_negative) on op.id = a.id
        cross join lateral (
          select substring(a.id from '^merchant:([^:]+):[a-z_]+$') as merchant_id,
                 substring(a.id from '^merchant:[^:]+:([a-z_]+)$') as bucket) m
        left join (values ${merchantChart()}) mc(bucket, currency, normal_side, non_negative)
               on op.id is null and mc.bucket = m.bucket
       where case
               when op.id is not null then
                 (a.currency, a.normal_side, a.non_negative, a.merchant_id)
                   is distinct from (op.currency, op.normal_side, op.non_negative, null::text)
               when mc.bucket is not null then
                 (a.currency, a.normal_side, a.non_negative, a.merchant_id)
                   is distinct from (mc.currency, mc.normal_side, mc.non_negative, m.merchant_id)
               else true
             end`,
  },
  {
    name: 'maintained_balance_matches_postings',
    description:
      'Each maintained balance (non_negative accounts) equals the sum of its postings in its normal direction.',
    sql: `
      select format('account %s has balance %s but its postings sum to %s',
                    a.id, coalesce(a.balance::text, 'null'), coalesce(s.net, 0)) as detail
        from ledger_accounts a
        left join (select p.account_id,
                          sum(case when p.direction = acc.normal_side then p.amount else -p.amount end) as net
                     from ledger_postings p join ledger_accounts acc on acc.id = p.account_id
                    group by p.account_id) s on s.account_id = a.id
       where a.non_negative and a.balance is distinct from coalesce(s.net, 0)`,
  },
  {
    name: 'maintained_balance_non_negative',
    description: 'No non_negative account is below zero (or without a balance).',
    sql: `
      select format('account %s has balance %s', a.id, coalesce(a.balance::text, 'null')) as detail
        from ledger_accounts a
       where a.non_negative and (a.balance is null or a.balance < 0)`,
  },
  {
    name: 'merchant_available_matches_settled',
    description:
      "Each merchant's usd_available equals the amount_asset of its converted MERCHANT_BALANCE deposits (reversed ones stay credited: the operator absorbs reversals) less its withdrawals that have not failed.",
    sql: `
      with owed as (
        select d.merchant_id, d.amount_asset as usd
          from deposits d
         where d.settlement_mode = 'MERCHANT_BALANCE' and d.fx_executed_at is not null
        union all
        select w.merchant_id, -w.amount from withdrawals w where w.status <> 'FAILED'
      ),
      expected as (select merchant_id, sum(usd) as usd from owed group by merchant_id),
      actual as (
        select a.merchant_id, a.balance as usd from ledger_accounts a
         where a.id = ${merchantAccountIdSql('a.merchant_id', 'usd_available')}
      )
      select format('merchant %s has usd_available %s but its converted MERCHANT_BALANCE deposits less withdrawals come to %s',
                    merchant_id, coalesce(actual.usd, 0), coalesce(expected.usd, 0)) as detail
        from expected full join actual using (merchant_id)
       where coalesce(actual.usd, 0) <> coalesce(expected.usd, 0)`,
  },
  {
    name: 'deposit_transactions_name_a_deposit',
    description: `Every ${DEPOSIT_KINDS.join('/')} transaction names its deposit.`,
    sql: `
      select format('transaction %s (%s) names no deposit', t.id, t.kind) as detail
        from ledger_transactions t
       where t.kind in (${list(DEPOSIT_KINDS)}) and t.deposit_id is null`,
  },
  {
    name: 'received_once_per_deposit',
    description: "Every deposit has exactly one 'deposit_received' transaction.",
    sql: `
      select format('deposit %s has %s deposit_received transactions', d.id, coalesce(t.n, 0)) as detail
        from deposits d
        left join (select deposit_id, count(*) as n from ledger_transactions
                    where kind = 'deposit_received' group by deposit_id) t on t.deposit_id = d.id
       where coalesce(t.n, 0) <> 1`,
  },
  {
    name: 'received_postings_match_deposit',
    description:
      "A deposit's 'deposit_received' debits ngn_bank and credits the holding account of its first status with amount_ngn, and nothing else.",
    sql: `
      with first_status as (
        select distinct on (e.deposit_id) e.deposit_id, e.status
          from events e where e.deposit_id is not null and e.status is not null
         order by e.deposit_id, e.seq
      ),
      legs as (
        select t.id, t.deposit_id,
               coalesce(sum(-(${NET_CREDIT})) filter (where p.account_id = ${lit(BANK)}), 0) as bank_debit,
               coalesce(sum(${NET_CREDIT}) filter (
                 where p.account_id = ${holdingOfSql('f.status', 'false')}
                    -- no event to say (latest_event_matches_status reports it): any holding account
                    or (f.status is null and p.account_id in (${list(HOLDING_IDS)}))), 0) as held,
               count(p.id) as postings
          from ledger_transactions t
          join deposits d on d.id = t.deposit_id
          left join first_status f on f.deposit_id = d.id
          left join ledger_postings p on p.transaction_id = t.id
         where t.kind = 'deposit_received'
         group by t.id, t.deposit_id
      )
      select format('deposit_received %s of deposit %s (%s NGN, first status %s) debits ngn_bank %s, credits its holding account %s, in %s postings',
                    l.id, d.id, d.amount_ngn, coalesce(f.status, 'unknown'), l.bank_debit, l.held, l.postings) as detail
        from legs l join deposits d on d.id = l.deposit_id
        left join first_status f on f.deposit_id = d.id
       where l.bank_debit <> d.amount_ngn or l.held <> d.amount_ngn or l.postings <> 2`,
  },
  {
    name: 'fx_once_per_converted_deposit',
    description:
      "Every 'deposit_fx' but a converted deposit's (fx_executed_at set) last one was unwound by an operator: a deposit has as many as its 'deposit_unwind' transactions, plus one while converted.",
    sql: `
      select format('deposit %s (%s, %s) has %s deposit_fx and %s deposit_unwind transactions',
                    d.id, d.status,
                    case when d.fx_executed_at is null then 'unconverted' else 'converted' end,
                    coalesce(t.fx, 0), coalesce(t.unwinds, 0)) as detail
        from deposits d
        left join (select deposit_id, count(*) filter (where kind = 'deposit_fx') as fx,
                          count(*) filter (where kind = 'deposit_unwind') as unwinds
                     from ledger_transactions
                    where kind in ('deposit_fx', 'deposit_unwind') group by deposit_id) t
               on t.deposit_id = d.id
       where coalesce(t.fx, 0)
             <> coalesce(t.unwinds, 0) + case when d.fx_executed_at is null then 0 else 1 end`,
  },
  {
    name: 'fx_postings_match_deposit',
    description:
      "A 'deposit_fx' moves amount_ngn from ngn_clearing out through ngn_bank and credits nothing to other merchant accounts; a converted deposit's latest one credits exactly amount_asset to that merchant's usd_available (MERCHANT_BALANCE) or to usd_payouts_pending (AUTO_WITHDRAW).",
    sql: `
      with legs as (
        select t.id, t.deposit_id,
               (d.fx_executed_at is not null
                and t.id = (select t2.id from ledger_transactions t2
                             where t2.deposit_id = t.deposit_id and t2.kind = 'deposit_fx'
                             order by t2.created_at desc, t2.id desc limit 1)) as current,
               coalesce(sum(-(${NET_CREDIT})) filter (where p.account_id = ${lit(OPERATOR.ngnClearing.id)}), 0) as clearing_debit,
               coalesce(sum(${NET_CREDIT}) filter (where p.account_id = ${lit(BANK)}), 0) as bank_credit,
               coalesce(sum(${NET_CREDIT}) filter (where p.account_id = ${merchantAccountIdSql('d.merchant_id', 'usd_available')}), 0) as merchant_credit,
               coalesce(sum(${NET_CREDIT}) filter (where p.account_id = ${lit(OPERATOR.usdPayoutsPending.id)}), 0) as payouts_credit,
               count(p.id) filter (where p.account_id like 'merchant:%'
                                     and (d.settlement_mode <> 'MERCHANT_BALANCE'
                                          or p.account_id <> ${merchantAccountIdSql('d.merchant_id', 'usd_available')})) as other_merchant,
               count(p.id) filter (where p.currency = 'NGN'
                                     and p.account_id not in (${lit(OPERATOR.ngnClearing.id)}, ${lit(BANK)})) as other_ngn
          from ledger_transactions t
          join deposits d on d.id = t.deposit_id
          left join ledger_postings p on p.transaction_id = t.id
         where t.kind = 'deposit_fx'
         group by t.id, t.deposit_id, d.fx_executed_at
      )
      select format('deposit_fx %s of deposit %s (%s NGN, amount_asset %s, %s): ngn_clearing debited %s, ngn_bank credited %s, usd_available credited %s, usd_payouts_pending credited %s, %s postings to other merchant accounts, %s to other NGN accounts',
                    l.id, d.id, d.amount_ngn, coalesce(d.amount_asset::text, 'null'), d.settlement_mode,
                    l.clearing_debit, l.bank_credit, l.merchant_credit, l.payouts_credit, l.other_merchant, l.other_ngn) as detail
        from legs l join deposits d on d.id = l.deposit_id
       where l.clearing_debit <> d.amount_ngn or l.bank_credit <> d.amount_ngn or l.other_ngn > 0
          or l.other_merchant > 0
          or (l.current
              and (case when d.settlement_mode = 'MERCHANT_BALANCE' then l.merchant_credit else l.payouts_credit end)
                  <> coalesce(d.amount_asset, 0))
          or (case when d.settlement_mode = 'MERCHANT_BALANCE' then l.payouts_credit else l.merchant_credit end) <> 0`,
  },
  {
    name: 'reversal_once_per_reversed_deposit',
    description:
      "Every deposit with reversed_at has exactly one 'deposit_reversal' transaction and no other deposit has one.",
    sql: `
      select format('deposit %s (%s, reversed_at %s) has %s deposit_reversal transactions',
                    d.id, d.status, coalesce(d.reversed_at::text, 'null'), coalesce(t.n, 0)) as detail
        from deposits d
        left join (select deposit_id, count(*) as n from ledger_transactions
                    where kind = 'deposit_reversal' group by deposit_id) t on t.deposit_id = d.id
       where coalesce(t.n, 0) <> case when d.reversed_at is null then 0 else 1 end`,
  },
  {
    name: 'reversal_postings_match_deposit',
    description:
      "A 'deposit_reversal' credits ngn_bank with amount_ngn, taken from ngn_reversal_losses when the deposit was converted, else from an NGN holding account.",
    sql: `
      with legs as (
        select t.id, t.deposit_id,
               coalesce(sum(${NET_CREDIT}) filter (where p.account_id = ${lit(BANK)}), 0) as bank_credit,
               coalesce(sum(-(${NET_CREDIT})) filter (where p.account_id = ${lit(LOSSES)}), 0) as losses_debit,
               coalesce(sum(-(${NET_CREDIT})) filter (where p.account_id in (${list(HOLDING_IDS)})), 0) as holding_debit,
               count(p.id) as postings
          from ledger_transactions t
          left join ledger_postings p on p.transaction_id = t.id
         where t.kind = 'deposit_reversal'
         group by t.id, t.deposit_id
      )
      select format('deposit_reversal %s of deposit %s (%s NGN, %s): ngn_bank credited %s, ngn_reversal_losses debited %s, holding accounts debited %s, in %s postings',
                    l.id, d.id, d.amount_ngn,
                    case when d.fx_executed_at is null then 'unconverted' else 'converted' end,
                    l.bank_credit, l.losses_debit, l.holding_debit, l.postings) as detail
        from legs l join deposits d on d.id = l.deposit_id
       where l.bank_credit <> d.amount_ngn or l.postings <> 2
          or (case when d.fx_executed_at is null then l.holding_debit else l.losses_debit end) <> d.amount_ngn`,
  },
  {
    name: 'deposit_ngn_held_where_status_says',
    description:
      'Per deposit, the NGN its own transactions left in each holding account is amount_ngn in the account of its status (while unconverted and unreversed) and zero in the others.',
    sql: `
      with net as (
        select t.deposit_id, p.account_id, sum(${NET_CREDIT}) as held
          from ledger_postings p join ledger_transactions t on t.id = p.transaction_id
         where t.deposit_id is not null and p.account_id in (${list(HOLDING_IDS)})
         group by t.deposit_id, p.account_id
      ),
      expected as (
        select d.id as deposit_id, h.account_id,
               case when d.reversed_at is null
                     and h.account_id = ${holdingOfSql('d.status', 'd.fx_executed_at is not null')}
                    then d.amount_ngn else 0 end as held
          from deposits d cross join (values ${HOLDING_IDS.map((id) => `(${lit(id)})`).join(', ')}) h(account_id)
      )
      select format('deposit %s (%s, %s%s) leaves %s NGN in %s; expected %s',
                    d.id, d.status,
                    case when d.fx_executed_at is null then 'unconverted' else 'converted' end,
                    case when d.reversed_at is null then '' else ', reversed' end,
                    coalesce(n.held, 0), e.account_id, e.held) as detail
        from expected e
        join deposits d on d.id = e.deposit_id
        left join net n on n.deposit_id = e.deposit_id and n.account_id = e.account_id
       where coalesce(n.held, 0) <> e.held`,
  },
  ...HOLDINGS.map(holdingTotalCheck),
  {
    name: 'ngn_unmatched_matches_transfers',
    description: `${UNMATCHED} holds the sum of unmatched_transfers.`,
    sql: `
      select format('%s holds %s NGN but unmatched_transfers sum to %s', ${lit(UNMATCHED)}, a.actual, e.expected) as detail
        from ${operatorBalance(UNMATCHED, 'CREDIT')} a,
             (select coalesce(sum(amount_ngn), 0) as expected from unmatched_transfers) e
       where a.actual <> e.expected`,
  },
  {
    name: 'unmatched_transfer_booked_once',
    description:
      "Every unmatched transfer has exactly one 'unmatched_transfer' transaction (memo = bank_reference, no deposit) crediting ngn_unmatched with its amount, and every such transaction has its transfer.",
    sql: `
      with booked as (
        select t.memo as bank_reference, count(distinct t.id) as n,
               bool_or(t.deposit_id is not null) as names_deposit,
               coalesce(sum(${NET_CREDIT}) filter (where p.account_id = ${lit(UNMATCHED)}), 0) as credited
          from ledger_transactions t left join ledger_postings p on p.transaction_id = t.id
         where t.kind = 'unmatched_transfer'
         group by t.memo
      )
      select case
               when u.bank_reference is null
                 then format('unmatched_transfer transaction(s) with memo %s have no unmatched transfer', coalesce(b.bank_reference, 'null'))
               else format('unmatched transfer %s (%s NGN) is booked by %s transactions crediting %s%s',
                           u.bank_reference, u.amount_ngn, coalesce(b.n, 0), coalesce(b.credited, 0),
                           case when b.names_deposit then ', one naming a deposit' else '' end)
             end as detail
        from unmatched_transfers u full join booked b on b.bank_reference = u.bank_reference
       where u.bank_reference is null or b.bank_reference is null
          or b.n <> 1 or b.credited <> u.amount_ngn or b.names_deposit`,
  },
  {
    name: 'ngn_bank_matches_deposits',
    description: `${BANK} holds every NGN received (deposits and unmatched transfers) less what FX sold and what reversals took back.`,
    sql: `
      select format('%s holds %s NGN but received %s - converted %s - reversed %s = %s',
                    ${lit(BANK)}, a.actual, e.received, e.converted, e.reversed,
                    e.received - e.converted - e.reversed) as detail
        from ${operatorBalance(BANK, OPERATOR.ngnBank.normalSide)} a,
             (select (select coalesce(sum(amount_ngn), 0) from deposits)
                       + (select coalesce(sum(amount_ngn), 0) from unmatched_transfers) as received,
                     (select coalesce(sum(amount_ngn), 0) from deposits where fx_executed_at is not null) as converted,
                     (select coalesce(sum(amount_ngn), 0) from deposits where reversed_at is not null) as reversed) e
       where a.actual <> e.received - e.converted - e.reversed`,
  },
  {
    name: 'ngn_reversal_losses_matches_deposits',
    description: `${LOSSES} holds the NGN of the deposits reversed after conversion.`,
    sql: `
      select format('%s holds %s NGN but deposits reversed after conversion sum to %s',
                    ${lit(LOSSES)}, a.actual, e.expected) as detail
        from ${operatorBalance(LOSSES, OPERATOR.ngnReversalLosses.normalSide)} a,
             (select coalesce(sum(amount_ngn), 0) as expected from deposits
               where fx_executed_at is not null and reversed_at is not null) e
       where a.actual <> e.expected`,
  },
  {
    name: 'daily_volume_matches_deposits',
    description: `deposit_daily_volume per (merchant or 'system', lagos_day) is the sum of limit_usd of deposits in ${COUNTED.join(', ')}.`,
    sql: `
      with counted as (
        select d.merchant_id as scope, d.lagos_day as day, d.limit_usd as usd
          from deposits d where d.status in (${list(COUNTED)})
        union all
        select 'system', d.lagos_day, d.limit_usd
          from deposits d where d.status in (${list(COUNTED)})
      ),
      expected as (select scope, day, sum(usd) as usd from counted group by scope, day)
      select format('daily volume of %s on %s is %s USD but its counted deposits sum to %s',
                    scope, to_char(day, 'YYYY-MM-DD'), coalesce(v.usd, 0), coalesce(e.usd, 0)) as detail
        from deposit_daily_volume v full join expected e using (scope, day)
       where coalesce(v.usd, 0) <> coalesce(e.usd, 0)`,
  },
  {
    name: 'latest_event_matches_status',
    description:
      "Every deposit has at least one status event and its latest one (highest seq) has the deposit's current status and merchant.",
    sql: `
      with latest as (
        select distinct on (e.deposit_id) e.deposit_id, e.status, e.merchant_id, e.seq
          from events e where e.deposit_id is not null and e.status is not null
         order by e.deposit_id, e.seq desc
      )
      select case
               when l.deposit_id is null then format('deposit %s (%s) has no events', d.id, d.status)
               else format('deposit %s is %s of merchant %s but its latest event (seq %s) says %s of merchant %s',
                           d.id, d.status, d.merchant_id, l.seq, l.status, l.merchant_id)
             end as detail
        from deposits d left join latest l on l.deposit_id = d.id
       where l.deposit_id is null or l.status <> d.status or l.merchant_id <> d.merchant_id`,
  },
  {
    name: 'event_history_follows_transitions',
    description:
      "A deposit's events, in seq order, start in an initial status and move along deposit_transitions.",
    sql: `
      select case
               when e.previous is null then format('deposit %s starts with an event in %s (seq %s)', e.deposit_id, e.status, e.seq)
               else format('deposit %s moves from %s to %s (event seq %s), not a transition', e.deposit_id, e.previous, e.status, e.seq)
             end as detail
        from (select deposit_id, seq, status,
                     lag(status) over (partition by deposit_id order by seq) as previous
                from events where deposit_id is not null and status is not null) e
       where (e.previous is null and e.status not in (${list(INITIAL_STATUSES)}))
          or (e.previous is not null
              and not exists (select 1 from deposit_transitions t
                               where t.from_status = e.previous and t.to_status = e.status))`,
  },
  {
    name: 'settled_deposits_have_amounts',
    description:
      'SETTLED and REVERSED deposits have settled_at, amount_asset and fx_executed_at; every converted deposit has amount_asset.',
    sql: `
      select format('deposit %s (%s) has settled_at %s, amount_asset %s, fx_executed_at %s',
                    d.id, d.status, coalesce(d.settled_at::text, 'null'),
                    coalesce(d.amount_asset::text, 'null'), coalesce(d.fx_executed_at::text, 'null')) as detail
        from deposits d
       where (d.status in ('SETTLED', 'REVERSED')
              and (d.settled_at is null or d.amount_asset is null or d.fx_executed_at is null))
          or (d.fx_executed_at is not null and d.amount_asset is null)`,
  },
  {
    name: 'reversed_deposits_have_reversed_at',
    description: 'REVERSED deposits have reversed_at.',
    sql: `
      select format('deposit %s is REVERSED without reversed_at', d.id) as detail
        from deposits d where d.status = 'REVERSED' and d.reversed_at is null`,
  },
  ...PAYOUT_CHECKS,
  ...EVENT_CHECKS,
];

/** The one statement that runs every check: (invariant, detail, total) rows. */
export function ledgerCheckSql(checks: readonly LedgerCheck[] = LEDGER_CHECKS): string {
  return checks
    .map(
      (check, i) => `
select ${i} as ord, ${lit(check.name)}::text as invariant, c.detail::text as detail, c.total::int as total
  from (select v.detail, row_number() over () as n, count(*) over () as total
          from (${check.sql}
               ) v) c
 where c.n <= ${MAX_DETAILS_PER_CHECK}`,
    )
    .join('\nunion all')
    .concat('\norder by ord, detail');
}

interface CheckRow {
  invariant: string;
  detail: string;
  total: number | string;
}

/** Turns the statement's rows into violations, summarising checks cut at the cap. */
export function violationsFrom(rows: readonly CheckRow[]): LedgerViolation[] {
  const out: LedgerViolation[] = [];
  const seen = new Map<string, number>();
  for (const row of rows) {
    out.push({ invariant: row.invariant, detail: row.detail });
    seen.set(row.invariant, Number(row.total));
  }
  for (const [invariant, total] of seen) {
    if (total > MAX_DETAILS_PER_CHECK) {
      out.push({
        invariant,
        detail: `... and ${total - MAX_DETAILS_PER_CHECK} more violations of ${invariant}`,
      });
    }
  }
  return out;
}

/** Names of every check `checkLedger` runs, in order. */
export const LEDGER_CHECK_NAMES: readonly string[] = LEDGER_CHECKS.map((c) => c.name);

/** Runs every check in one statement (one snapshot) and returns what does not hold. */
export async function checkLedger(query: LedgerQuery): Promise<LedgerViolation[]> {
  return violationsFrom((await query(ledgerCheckSql())) as CheckRow[]);
}
