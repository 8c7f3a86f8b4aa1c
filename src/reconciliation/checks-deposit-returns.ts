import { OPERATOR } from '../domain/ledger';
import { lit, NET_CREDIT, operatorBalance } from '../ledger';
import type { LedgerCheck } from './ledger-check-type';

const BANK = OPERATOR.ngnBank.id;
const RETURNS = OPERATOR.ngnReturns.id;
const FEES = OPERATOR.ngnReturnFees.id;
const TWICE = OPERATOR.ngnPaidTwice.id;

/** SQL: the deposit `d` was once RETURNED (its history says so, whatever it is now). */
const WAS_RETURNED = `exists (select 1 from events e where e.deposit_id = d.id and e.status = 'RETURNED')`;

/**
 * Returns to the payer (`deposit_returns`, read-only): the attempts follow the deposit's
 * status, and each RETURNED deposit booked its NGN out once, net of the fee the operator kept.
 * A bank reversal during or after a return (docs/api.md, "Returns to the payer") leaves at
 * most one attempt open or completed, and what a payer was paid twice is in ngn_paid_twice.
 */
export const DEPOSIT_RETURN_CHECKS: readonly LedgerCheck[] = [
  {
    name: 'return_attempts_match_status',
    description:
      'A RETURNING deposit has exactly one open (PENDING or SENT) return attempt and a RETURNED one exactly one COMPLETED; a reversed deposit has at most one of each (a return out when the bank reversed it); no other deposit has either.',
    sql: `
      select format('deposit %s (%s%s) has %s open and %s completed return attempts',
                    d.id, d.status, case when d.reversed_at is null then '' else ', reversed' end,
                    coalesce(r.open, 0), coalesce(r.completed, 0)) as detail
        from deposits d
        left join (select deposit_id,
                          count(*) filter (where status in ('PENDING', 'SENT')) as open,
                          count(*) filter (where status = 'COMPLETED') as completed
                     from deposit_returns group by deposit_id) r on r.deposit_id = d.id
       where case
               when d.status = 'RETURNING' then coalesce(r.open, 0) <> 1 or coalesce(r.completed, 0) <> 0
               when d.status = 'RETURNED' then coalesce(r.open, 0) <> 0 or coalesce(r.completed, 0) <> 1
               when d.reversed_at is not null then coalesce(r.open, 0) + coalesce(r.completed, 0) > 1
               else coalesce(r.open, 0) <> 0 or coalesce(r.completed, 0) <> 0
             end`,
  },
  {
    name: 'returned_postings_match_return',
    description:
      "A deposit that was RETURNED has exactly one 'deposit_returned' transaction (and no other deposit one): it debits ngn_returns with amount_ngn, credits ngn_bank with amount_ngn less the attempt's fee and ngn_return_fees with the fee.",
    sql: `
      with legs as (
        select t.deposit_id, count(distinct t.id) as n,
               coalesce(sum(-(${NET_CREDIT})) filter (where p.account_id = ${lit(RETURNS)}), 0) as returns_debit,
               coalesce(sum(${NET_CREDIT}) filter (where p.account_id = ${lit(BANK)}), 0) as bank_credit,
               coalesce(sum(${NET_CREDIT}) filter (where p.account_id = ${lit(FEES)}), 0) as fee_credit
          from ledger_transactions t left join ledger_postings p on p.transaction_id = t.id
         where t.kind = 'deposit_returned'
         group by t.deposit_id
      )
      select format('deposit %s (%s, %s NGN, fee %s) has %s deposit_returned transactions: ngn_returns debited %s, ngn_bank credited %s, ngn_return_fees credited %s',
                    d.id, d.status, d.amount_ngn, coalesce(r.fee_ngn::text, 'none'), coalesce(l.n, 0),
                    coalesce(l.returns_debit, 0), coalesce(l.bank_credit, 0), coalesce(l.fee_credit, 0)) as detail
        from deposits d
        left join legs l on l.deposit_id = d.id
        left join deposit_returns r on r.deposit_id = d.id and r.status = 'COMPLETED'
       where coalesce(l.n, 0) <> case when ${WAS_RETURNED} then 1 else 0 end
          or (l.n is not null
              and (l.returns_debit <> d.amount_ngn or r.id is null
                   or l.bank_credit <> d.amount_ngn - r.fee_ngn or l.fee_credit <> r.fee_ngn))`,
  },
  {
    name: 'paid_twice_postings_match_return',
    description:
      "A reversed deposit whose return the bank paid after the reversal has exactly one 'deposit_paid_twice' transaction (and no other deposit one): ngn_paid_twice debited and ngn_bank credited with what the return paid.",
    sql: `
      with legs as (
        select t.deposit_id, count(distinct t.id) as n,
               coalesce(sum(-(${NET_CREDIT})) filter (where p.account_id = ${lit(TWICE)}), 0) as twice_debit,
               coalesce(sum(${NET_CREDIT}) filter (where p.account_id = ${lit(BANK)}), 0) as bank_credit,
               count(p.id) as postings
          from ledger_transactions t left join ledger_postings p on p.transaction_id = t.id
         where t.kind = 'deposit_paid_twice'
         group by t.deposit_id
      )
      select format('deposit %s (%s) has %s deposit_paid_twice transactions: ngn_paid_twice debited %s, ngn_bank credited %s in %s postings; its completed return paid %s',
                    d.id, d.status, coalesce(l.n, 0), coalesce(l.twice_debit, 0),
                    coalesce(l.bank_credit, 0), coalesce(l.postings, 0),
                    coalesce((r.amount_ngn - r.fee_ngn)::text, 'none')) as detail
        from deposits d
        left join legs l on l.deposit_id = d.id
        left join deposit_returns r on r.deposit_id = d.id and r.status = 'COMPLETED'
       where coalesce(l.n, 0)
             <> case when d.reversed_at is not null and r.id is not null and not ${WAS_RETURNED}
                      and r.amount_ngn > r.fee_ngn then 1 else 0 end
          or (l.n is not null
              and (l.twice_debit <> r.amount_ngn - r.fee_ngn or l.bank_credit <> l.twice_debit
                   or l.postings <> 2))`,
  },
  {
    name: 'ngn_return_fees_matches_returns',
    description: `${FEES} holds the fees of the completed returns of deposits not reversed (a payer paid twice earns no fee).`,
    sql: `
      select format('%s holds %s NGN but completed returns of unreversed deposits kept %s in fees', ${lit(FEES)}, a.actual, e.expected) as detail
        from ${operatorBalance(FEES, OPERATOR.ngnReturnFees.normalSide)} a,
             (select coalesce(sum(r.fee_ngn), 0) as expected
                from deposit_returns r join deposits d on d.id = r.deposit_id
               where r.status = 'COMPLETED' and d.reversed_at is null) e
       where a.actual <> e.expected`,
  },
  {
    name: 'ngn_paid_twice_matches_returns',
    description: `${TWICE} holds what completed returns of reversed deposits paid (amount less fee): NGN a payer received twice.`,
    sql: `
      select format('%s holds %s NGN but completed returns of reversed deposits paid %s', ${lit(TWICE)}, a.actual, e.expected) as detail
        from ${operatorBalance(TWICE, OPERATOR.ngnPaidTwice.normalSide)} a,
             (select coalesce(sum(r.amount_ngn - r.fee_ngn), 0) as expected
                from deposit_returns r join deposits d on d.id = r.deposit_id
               where r.status = 'COMPLETED' and d.reversed_at is not null) e
       where a.actual <> e.expected`,
  },
];
