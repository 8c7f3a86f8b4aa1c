import {
  merchantAccount,
  MERCHANT_BUCKETS,
  OPERATOR,
  OPERATOR_ACCOUNTS_WITHOUT_FLOOR,
} from '../domain/ledger';
import { list, lit, merchantAccountIdSql, NET_CREDIT } from '../ledger';
import type { LedgerCheck } from './ledger-check-type';

const BUCKETS = MERCHANT_BUCKETS;
const DEPOSIT_KINDS = [
  'deposit_received',
  'deposit_hold',
  'deposit_fx',
  'deposit_reversal',
  'deposit_unwind',
  'deposit_release',
  'deposit_returned',
  'deposit_paid_twice',
  'reserve_hold',
  'merchant_debit',
];

/** The operator accounts held at zero or above: all but the few without a floor by design. */
export const FLOORED_OPERATOR_ACCOUNTS = Object.values(OPERATOR).filter(
  (a) => !(a.id in OPERATOR_ACCOUNTS_WITHOUT_FLOOR),
);

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

/** The ledger's own invariants (balance, chart, maintained balances) and the merchants' USD. */
export const LEDGER_OWN_CHECKS: readonly LedgerCheck[] = [
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
    name: 'operator_accounts_not_below_zero',
    description: `No operator account is below zero in its normal direction, but ${Object.keys(OPERATOR_ACCOUNTS_WITHOUT_FLOOR).join(', ')} (docs/decisions.md: the operator's losses are paid from its own money, which the ledger does not hold).`,
    sql: `
      select format('account %s holds %s %s (below zero)', f.id, sum(
                      case when f.normal_side = 'CREDIT' then ${NET_CREDIT} else -(${NET_CREDIT}) end),
                    f.currency) as detail
        from (values ${FLOORED_OPERATOR_ACCOUNTS.map(
          (a) => `(${lit(a.id)}, ${lit(a.normalSide)}, ${lit(a.currency)})`,
        ).join(', ')}) f(id, normal_side, currency)
        join ledger_postings p on p.account_id = f.id
       group by f.id, f.normal_side, f.currency
      having sum(case when f.normal_side = 'CREDIT' then ${NET_CREDIT} else -(${NET_CREDIT}) end) < 0`,
  },
  {
    name: 'merchant_balance_matches_deposits',
    description:
      "Each merchant's usd_available plus usd_reserved less usd_owed equals the amount_asset of its converted MERCHANT_BALANCE deposits, less its withdrawals that have not failed, less the amount_asset of the deposits it was debited for (reversals it was liable for; the operator absorbs the others).",
    sql: `
      with owed as (
        select d.merchant_id, d.amount_asset as usd
          from deposits d
         where d.settlement_mode = 'MERCHANT_BALANCE' and d.fx_executed_at is not null
        union all
        select w.merchant_id, -w.amount from withdrawals w where w.status <> 'FAILED'
        union all
        select d.merchant_id, -d.amount_asset
          from deposits d join ledger_transactions t on t.deposit_id = d.id
         where t.kind = 'merchant_debit'
      ),
      expected as (select merchant_id, sum(usd) as usd from owed group by merchant_id),
      actual as (
        select a.merchant_id,
               sum(case when a.id = ${merchantAccountIdSql('a.merchant_id', 'usd_owed')}
                        then -a.balance else a.balance end) as usd
          from ledger_accounts a
         where a.id in (${merchantAccountIdSql('a.merchant_id', 'usd_available')},
                        ${merchantAccountIdSql('a.merchant_id', 'usd_reserved')},
                        ${merchantAccountIdSql('a.merchant_id', 'usd_owed')})
         group by a.merchant_id
      )
      select format('merchant %s has usd_available + usd_reserved - usd_owed %s but its converted MERCHANT_BALANCE deposits less withdrawals and merchant debits come to %s',
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
];
