import { countsAgainstLimits } from '../domain/deposit-rules';
import { DEPOSIT_STATUSES, INITIAL_STATUSES } from '../domain/deposit-state-machine';
import { OPERATOR } from '../domain/ledger';
import { list, lit, NET_CREDIT, operatorBalance } from '../ledger';
import { HOLDINGS, type Holding } from './holdings';
import type { LedgerCheck } from './ledger-check-type';

const BANK = OPERATOR.ngnBank.id;
const LOSSES = OPERATOR.ngnReversalLosses.id;
const UNMATCHED = OPERATOR.ngnUnmatched.id;
const COUNTED = DEPOSIT_STATUSES.filter((s) => countsAgainstLimits(s));

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

/** Operator accounts against the deposits' totals, daily volumes, status histories, amounts. */
export const DEPOSIT_TOTAL_CHECKS: readonly LedgerCheck[] = [
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
    description: `${BANK} holds every NGN received (deposits and unmatched transfers) less what FX sold, what reversals took back and what went back to payers (returns net of their fee).`,
    sql: `
      select format('%s holds %s NGN but received %s - converted %s - reversed %s - returned %s = %s',
                    ${lit(BANK)}, a.actual, e.received, e.converted, e.reversed, e.returned,
                    e.received - e.converted - e.reversed - e.returned) as detail
        from ${operatorBalance(BANK, OPERATOR.ngnBank.normalSide)} a,
             (select (select coalesce(sum(amount_ngn), 0) from deposits)
                       + (select coalesce(sum(amount_ngn), 0) from unmatched_transfers) as received,
                     (select coalesce(sum(amount_ngn), 0) from deposits where fx_executed_at is not null) as converted,
                     (select coalesce(sum(amount_ngn), 0) from deposits where reversed_at is not null) as reversed,
                     (select coalesce(sum(amount_ngn - fee_ngn), 0) from deposit_returns where status = 'COMPLETED') as returned) e
       where a.actual <> e.received - e.converted - e.reversed - e.returned`,
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
      'SETTLED deposits, and REVERSED ones but those whose return the reversal cancelled (never converted nor settled), have settled_at, amount_asset and fx_executed_at; every converted deposit has amount_asset.',
    sql: `
      select format('deposit %s (%s) has settled_at %s, amount_asset %s, fx_executed_at %s',
                    d.id, d.status, coalesce(d.settled_at::text, 'null'),
                    coalesce(d.amount_asset::text, 'null'), coalesce(d.fx_executed_at::text, 'null')) as detail
        from deposits d
       where (d.status = 'SETTLED'
              and (d.settled_at is null or d.amount_asset is null or d.fx_executed_at is null))
          or (d.status = 'REVERSED'
              and (d.settled_at is null or d.amount_asset is null or d.fx_executed_at is null)
              and not (d.settled_at is null and d.fx_executed_at is null
                       and exists (select 1 from deposit_returns r
                                    where r.deposit_id = d.id and r.status = 'CANCELLED')))
          or (d.fx_executed_at is not null and d.amount_asset is null)`,
  },
  {
    name: 'reversed_deposits_have_reversed_at',
    description: 'REVERSED deposits have reversed_at.',
    sql: `
      select format('deposit %s is REVERSED without reversed_at', d.id) as detail
        from deposits d where d.status = 'REVERSED' and d.reversed_at is null`,
  },
];
