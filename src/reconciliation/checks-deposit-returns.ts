import { OPERATOR } from '../domain/ledger';
import { lit, NET_CREDIT, operatorBalance } from '../ledger';
import type { LedgerCheck } from './ledger-check';

const BANK = OPERATOR.ngnBank.id;
const RETURNS = OPERATOR.ngnReturns.id;
const FEES = OPERATOR.ngnReturnFees.id;

/**
 * Returns to the payer (`deposit_returns`, read-only): the attempts follow the deposit's
 * status, and each RETURNED deposit booked its NGN out once, net of the fee the operator kept.
 */
export const DEPOSIT_RETURN_CHECKS: readonly LedgerCheck[] = [
  {
    name: 'return_attempts_match_status',
    description:
      'A RETURNING deposit has exactly one open (PENDING or SENT) return attempt and a RETURNED one exactly one COMPLETED; no other deposit has either.',
    sql: `
      select format('deposit %s (%s) has %s open and %s completed return attempts',
                    d.id, d.status, coalesce(r.open, 0), coalesce(r.completed, 0)) as detail
        from deposits d
        left join (select deposit_id,
                          count(*) filter (where status in ('PENDING', 'SENT')) as open,
                          count(*) filter (where status = 'COMPLETED') as completed
                     from deposit_returns group by deposit_id) r on r.deposit_id = d.id
       where coalesce(r.open, 0) <> case when d.status = 'RETURNING' then 1 else 0 end
          or coalesce(r.completed, 0) <> case when d.status = 'RETURNED' then 1 else 0 end`,
  },
  {
    name: 'returned_postings_match_return',
    description:
      "A RETURNED deposit has exactly one 'deposit_returned' transaction (and no other deposit one): it debits ngn_returns with amount_ngn, credits ngn_bank with amount_ngn less the attempt's fee and ngn_return_fees with the fee.",
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
       where coalesce(l.n, 0) <> case when d.status = 'RETURNED' then 1 else 0 end
          or (l.n is not null
              and (l.returns_debit <> d.amount_ngn or r.id is null
                   or l.bank_credit <> d.amount_ngn - r.fee_ngn or l.fee_credit <> r.fee_ngn))`,
  },
  {
    name: 'ngn_return_fees_matches_returns',
    description: `${FEES} holds the fees of the completed returns.`,
    sql: `
      select format('%s holds %s NGN but completed returns kept %s in fees', ${lit(FEES)}, a.actual, e.expected) as detail
        from ${operatorBalance(FEES, OPERATOR.ngnReturnFees.normalSide)} a,
             (select coalesce(sum(fee_ngn), 0) as expected from deposit_returns where status = 'COMPLETED') e
       where a.actual <> e.expected`,
  },
];
