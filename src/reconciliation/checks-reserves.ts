import { OPERATOR } from '../domain/ledger';
import { lit, merchantAccountIdSql, NET_CREDIT } from '../ledger';
import type { LedgerCheck } from './ledger-check-type';

const DEBITS = OPERATOR.usdMerchantDebits.id;
const reserved = (merchantIdSql: string) => merchantAccountIdSql(merchantIdSql, 'usd_reserved');
const available = (merchantIdSql: string) => merchantAccountIdSql(merchantIdSql, 'usd_available');
const owed = (merchantIdSql: string) => merchantAccountIdSql(merchantIdSql, 'usd_owed');

/** SQL: a transaction `t`'s net on one account, in the account's credit direction. */
const netOn = (account: string) =>
  `coalesce(sum(${NET_CREDIT}) filter (where p.account_id = ${account}), 0)`;

/**
 * Reserves and merchant debits (docs/api.md, "Losses, reserves and sanctions"): usd_reserved
 * against the holds, each hold, release and debit against its postings.
 */
export const RESERVE_CHECKS: readonly LedgerCheck[] = [
  {
    name: 'reserved_matches_holds',
    description:
      "Each merchant's usd_reserved equals what its unreleased reserve holds still hold (amount less drawn).",
    sql: `
      with expected as (
        select merchant_id, sum(amount - drawn) as usd from reserve_holds
         where released_at is null group by merchant_id
      ),
      actual as (
        select a.merchant_id, a.balance as usd from ledger_accounts a
         where a.id = ${reserved('a.merchant_id')}
      )
      select format('merchant %s has usd_reserved %s but its open reserve holds hold %s',
                    merchant_id, coalesce(actual.usd, 0), coalesce(expected.usd, 0)) as detail
        from expected full join actual using (merchant_id)
       where coalesce(actual.usd, 0) <> coalesce(expected.usd, 0)`,
  },
  {
    name: 'reserve_hold_postings_match_holds',
    description:
      "Every reserve hold has one 'reserve_hold' of its converted MERCHANT_BALANCE deposit moving exactly its amount from the merchant's usd_available to its usd_reserved, and every 'reserve_hold' has its hold.",
    sql: `
      with legs as (
        select t.id, t.deposit_id, d.merchant_id, d.settlement_mode, d.fx_executed_at,
               ${netOn(reserved('d.merchant_id'))} as reserved_credit,
               -${netOn(available('d.merchant_id'))} as available_debit,
               count(p.id) as postings
          from ledger_transactions t
          join deposits d on d.id = t.deposit_id
          left join ledger_postings p on p.transaction_id = t.id
         where t.kind = 'reserve_hold'
         group by t.id, t.deposit_id, d.merchant_id, d.settlement_mode, d.fx_executed_at
      )
      select format('reserve hold of deposit %s: hold %s (merchant %s), reserve_hold %s moving %s to usd_reserved and %s from usd_available in %s postings (%s, %s)',
                    coalesce(h.deposit_id, l.deposit_id), coalesce(h.amount::text, 'missing'),
                    coalesce(h.merchant_id, '-'), coalesce(l.id, 'missing'), l.reserved_credit,
                    l.available_debit, l.postings, coalesce(l.settlement_mode, '-'),
                    case when l.fx_executed_at is null then 'unconverted' else 'converted' end) as detail
        from reserve_holds h full join legs l on l.deposit_id = h.deposit_id
       where h.deposit_id is null or l.id is null or h.merchant_id <> l.merchant_id
          or l.reserved_credit <> h.amount or l.available_debit <> h.amount or l.postings <> 2
          or l.settlement_mode <> 'MERCHANT_BALANCE' or l.fx_executed_at is null`,
  },
  {
    name: 'reserve_release_postings_match_holds',
    description:
      "Every 'reserve_release' moves from one merchant's usd_reserved to its usd_available exactly what the holds it released still held, and every released hold names one.",
    sql: `
      with legs as (
        select t.id, min(a.merchant_id) as merchant_id, count(distinct a.merchant_id) as merchants,
               sum(case when a.id = ${reserved('a.merchant_id')} then -(${NET_CREDIT}) else 0 end) as reserved_debit,
               sum(case when a.id = ${available('a.merchant_id')} then ${NET_CREDIT} else 0 end) as available_credit,
               count(p.id) as postings
          from ledger_transactions t
          left join ledger_postings p on p.transaction_id = t.id
          left join ledger_accounts a on a.id = p.account_id
         where t.kind = 'reserve_release'
         group by t.id
      ),
      released as (
        select release_transaction_id as id, min(merchant_id) as merchant_id,
               sum(amount - drawn) as usd, count(*) as holds
          from reserve_holds where released_at is not null group by release_transaction_id
      )
      select format('reserve_release %s: releases %s holds of merchant %s holding %s; moves %s from usd_reserved and %s to usd_available of %s merchant(s) in %s postings',
                    coalesce(l.id, r.id, 'none'), coalesce(r.holds, 0), coalesce(r.merchant_id, '-'),
                    coalesce(r.usd, 0), l.reserved_debit, l.available_credit, l.merchants, l.postings) as detail
        from legs l full join released r on r.id = l.id
       where l.id is null or r.id is null or l.merchants <> 1 or l.merchant_id <> r.merchant_id
          or l.reserved_debit <> r.usd or l.available_credit <> r.usd or l.postings <> 2`,
  },
  {
    name: 'merchant_debit_postings_match_deposits',
    description: `A 'merchant_debit' is of a reversed, converted deposit: it credits ${DEBITS} with amount_asset and debits as much from that deposit's merchant (usd_reserved, usd_available, or into usd_owed), and nothing else.`,
    sql: `
      with legs as (
        select t.id, t.deposit_id,
               ${netOn(lit(DEBITS))} as operator_credit,
               -(${netOn(reserved('d.merchant_id'))}) - ${netOn(available('d.merchant_id'))}
                 - ${netOn(owed('d.merchant_id'))} as merchant_debit,
               count(p.id) filter (where p.account_id not in
                 (${lit(DEBITS)}, ${reserved('d.merchant_id')}, ${available('d.merchant_id')}, ${owed('d.merchant_id')})) as others
          from ledger_transactions t
          join deposits d on d.id = t.deposit_id
          left join ledger_postings p on p.transaction_id = t.id
         where t.kind = 'merchant_debit'
         group by t.id, t.deposit_id, d.merchant_id
      )
      select format('merchant_debit %s of deposit %s (%s, amount_asset %s, %s): credits %s %s, debits the merchant %s, %s other postings',
                    l.id, d.id, d.status, coalesce(d.amount_asset::text, 'null'),
                    case when d.reversed_at is null then 'not reversed' else 'reversed' end,
                    ${lit(DEBITS)}, l.operator_credit, l.merchant_debit, l.others) as detail
        from legs l join deposits d on d.id = l.deposit_id
       where d.reversed_at is null or d.fx_executed_at is null or d.status <> 'REVERSED'
          or l.operator_credit <> d.amount_asset or l.merchant_debit <> d.amount_asset or l.others > 0`,
  },
  {
    name: 'reserve_draws_match_debits',
    description:
      'Per merchant, what its merchant debits took from usd_reserved equals what its reserve holds record as drawn.',
    sql: `
      with taken as (
        select a.merchant_id, sum(-(${NET_CREDIT})) as usd
          from ledger_transactions t
          join ledger_postings p on p.transaction_id = t.id
          join ledger_accounts a on a.id = p.account_id and a.id = ${reserved('a.merchant_id')}
         where t.kind = 'merchant_debit'
         group by a.merchant_id
      ),
      drawn as (select merchant_id, sum(drawn) as usd from reserve_holds group by merchant_id)
      select format('merchant %s: merchant debits took %s from usd_reserved but its holds record %s drawn',
                    merchant_id, coalesce(taken.usd, 0), coalesce(drawn.usd, 0)) as detail
        from taken full join drawn using (merchant_id)
       where coalesce(taken.usd, 0) <> coalesce(drawn.usd, 0)`,
  },
];
