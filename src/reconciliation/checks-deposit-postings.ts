import { OPERATOR } from '../domain/ledger';
import { list, lit, merchantAccountIdSql, NET_CREDIT } from '../ledger';
import { HOLDING_IDS, holdingOfSql } from './holdings';
import type { LedgerCheck } from './ledger-check-type';

const BANK = OPERATOR.ngnBank.id;
const LOSSES = OPERATOR.ngnReversalLosses.id;
const TWICE = OPERATOR.ngnPaidTwice.id;
const FEES = OPERATOR.ngnReturnFees.id;

/** Each deposit's own ledger transactions: received once, converted, reversed, where it is held. */
export const DEPOSIT_POSTING_CHECKS: readonly LedgerCheck[] = [
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
      "A 'deposit_reversal' credits ngn_bank with amount_ngn, taken from ngn_reversal_losses when the deposit was converted, from ngn_paid_twice and ngn_return_fees (the return's fee) when it was RETURNED, else from an NGN holding account.",
    sql: `
      with legs as (
        select t.id, t.deposit_id,
               coalesce(sum(${NET_CREDIT}) filter (where p.account_id = ${lit(BANK)}), 0) as bank_credit,
               coalesce(sum(-(${NET_CREDIT})) filter (where p.account_id = ${lit(LOSSES)}), 0) as losses_debit,
               coalesce(sum(-(${NET_CREDIT})) filter (where p.account_id in (${list(HOLDING_IDS)})), 0) as holding_debit,
               coalesce(sum(-(${NET_CREDIT})) filter (where p.account_id = ${lit(TWICE)}), 0) as twice_debit,
               coalesce(sum(-(${NET_CREDIT})) filter (where p.account_id = ${lit(FEES)}), 0) as fee_debit,
               count(p.id) as postings
          from ledger_transactions t
          left join ledger_postings p on p.transaction_id = t.id
         where t.kind = 'deposit_reversal'
         group by t.id, t.deposit_id
      ),
      sources as (
        select l.*, d.amount_ngn, d.fx_executed_at,
               exists (select 1 from events e where e.deposit_id = d.id and e.status = 'RETURNED') as was_returned,
               (select r.fee_ngn from deposit_returns r
                 where r.deposit_id = d.id and r.status = 'COMPLETED') as fee_ngn
          from legs l join deposits d on d.id = l.deposit_id
      )
      select format('deposit_reversal %s of deposit %s (%s NGN, %s): ngn_bank credited %s, ngn_reversal_losses debited %s, holding accounts debited %s, ngn_paid_twice debited %s, ngn_return_fees debited %s, in %s postings',
                    s.id, s.deposit_id, s.amount_ngn,
                    case when s.fx_executed_at is not null then 'converted'
                         when s.was_returned then 'returned' else 'unconverted' end,
                    s.bank_credit, s.losses_debit, s.holding_debit, s.twice_debit, s.fee_debit, s.postings) as detail
        from sources s
       where s.bank_credit <> s.amount_ngn
          or case
               when s.fx_executed_at is not null
                 then s.losses_debit <> s.amount_ngn or s.postings <> 2
               when s.was_returned
                 then s.fee_ngn is null or s.fee_debit <> s.fee_ngn
                      or s.twice_debit <> s.amount_ngn - s.fee_ngn
                      or s.postings <> 1 + (case when s.fee_ngn > 0 then 1 else 0 end)
                                         + (case when s.amount_ngn > s.fee_ngn then 1 else 0 end)
               else s.holding_debit <> s.amount_ngn or s.postings <> 2
             end`,
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
];
