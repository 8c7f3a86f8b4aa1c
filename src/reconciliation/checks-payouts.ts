import { OPERATOR } from '../domain/ledger';
import type { LedgerCheck } from './ledger-check-type';
import { lit, merchantAccountIdSql, NET_CREDIT, operatorBalance } from '../ledger';

const PAYOUTS_PENDING = OPERATOR.usdPayoutsPending.id;
const SUSPENSE = OPERATOR.usdSuspense.id;
const RECOVERIES = OPERATOR.usdRecoveries.id;

/** SQL: the payout `po`'s USD has left suspense (an operator unwound or released it). */
const LEFT_SUSPENSE_SQL = `select 1 from ledger_transactions t
                            where t.payout_id = po.id and t.kind in ('deposit_unwind', 'deposit_release')`;

/**
 * SQL: the payout `po` was booked (CONFIRMED or FAILED), then a reorg took its block away: it is
 * SIGNED again, waiting to be mined, and its booking (ledger entry, owner's move) stands.
 */
const REORGED_SQL = `(po.status = 'SIGNED' and po.reorged_at is not null)`;
/** SQL: `po`'s booked outcome was a revert ('payout_failed'). */
const BOOKED_FAILED_SQL = `exists (select 1 from ledger_transactions f
                                   where f.payout_id = po.id and f.kind = 'payout_failed')`;

/** SQL: the account a payout's USD waits in while owed on-chain (see payout-ledger.ts). */
const HOLDING_SQL = `(case when po.deposit_id is not null then ${lit(PAYOUTS_PENDING)}
                      else ${merchantAccountIdSql('po.merchant_id', 'usd_pending_withdrawal')} end)`;
/** SQL: where it goes when the transfer does not happen. */
const RETURN_SQL = `(case when po.deposit_id is not null then ${lit(SUSPENSE)}
                     else ${merchantAccountIdSql('po.merchant_id', 'usd_available')} end)`;

/**
 * The ledger transaction each payout must have, by payout status: [kind, debited, credited].
 * withdrawal_requested exists for every withdrawal's payout whatever its status.
 */
const OUTCOME_KINDS = `(values
  ('CONFIRMED', 'payout_sent', ${HOLDING_SQL}, ${lit(OPERATOR.usdTreasury.id)}),
  ('FAILED', 'payout_failed', ${HOLDING_SQL}, ${RETURN_SQL}),
  ('CANCELLED', 'payout_cancelled', ${HOLDING_SQL}, ${RETURN_SQL}))`;

/** Checks of on-chain payouts and withdrawals: money owed on-chain, and the nonce sequence. */
export const PAYOUT_CHECKS: readonly LedgerCheck[] = [
  {
    name: 'merchant_pending_matches_withdrawals',
    description:
      "Each merchant's usd_pending_withdrawal equals the amount of its withdrawals still PENDING or BROADCAST.",
    sql: `
      with expected as (
        select merchant_id, sum(amount) as usd from withdrawals
         where status in ('PENDING', 'BROADCAST') group by merchant_id
      ),
      actual as (
        select a.merchant_id, a.balance as usd from ledger_accounts a
         where a.id = ${merchantAccountIdSql('a.merchant_id', 'usd_pending_withdrawal')}
      )
      select format('merchant %s has usd_pending_withdrawal %s but its open withdrawals sum to %s',
                    merchant_id, coalesce(actual.usd, 0), coalesce(expected.usd, 0)) as detail
        from expected full join actual using (merchant_id)
       where coalesce(actual.usd, 0) <> coalesce(expected.usd, 0)`,
  },
  {
    name: 'usd_payouts_pending_matches_payouts',
    description: `${PAYOUTS_PENDING} holds the amount of the deposit payouts not yet mined or cancelled (PENDING, SIGNED; not those SIGNED again after a reorg, already booked).`,
    sql: `
      select format('%s holds %s USD but open deposit payouts sum to %s', ${lit(PAYOUTS_PENDING)}, a.actual, e.expected) as detail
        from ${operatorBalance(PAYOUTS_PENDING, 'CREDIT')} a,
             (select coalesce(sum(amount), 0) as expected from payouts po
               where deposit_id is not null and status in ('PENDING', 'SIGNED')
                 and not ${REORGED_SQL}) e
       where a.actual <> e.expected`,
  },
  {
    name: 'usd_suspense_matches_payouts',
    description: `${SUSPENSE} holds the converted USD of deposits whose payout was cancelled or reverted, less what operators unwound or released.`,
    sql: `
      select format('%s holds %s USD but cancelled and reverted deposit payouts not yet unwound or released sum to %s', ${lit(SUSPENSE)}, a.actual, e.expected) as detail
        from ${operatorBalance(SUSPENSE, 'CREDIT')} a,
             (select coalesce(sum(po.amount), 0) as expected from payouts po
               where po.deposit_id is not null
                 and (po.status in ('CANCELLED', 'FAILED') or (${REORGED_SQL} and ${BOOKED_FAILED_SQL}))
                 and not exists (${LEFT_SUSPENSE_SQL})) e
       where a.actual <> e.expected`,
  },
  {
    name: 'suspense_leaves_by_its_payout',
    description: `A 'deposit_unwind' names a cancelled or reverted payout of its deposit, moves its amount from ${SUSPENSE} to usd_treasury and the deposit's amount_ngn from ngn_bank to ngn_suspense; a 'deposit_release' names one of a reversed deposit and moves its amount from ${SUSPENSE} to ${RECOVERIES}.`,
    sql: `
      with legs as (
        select t.id, t.kind, t.deposit_id, t.payout_id,
               coalesce(sum(-(${NET_CREDIT})) filter (where p.account_id = ${lit(SUSPENSE)}), 0) as suspense_debit,
               coalesce(sum(${NET_CREDIT}) filter (where p.account_id = ${lit(OPERATOR.usdTreasury.id)}), 0) as treasury_credit,
               coalesce(sum(${NET_CREDIT}) filter (where p.account_id = ${lit(RECOVERIES)}), 0) as recoveries_credit,
               coalesce(sum(-(${NET_CREDIT})) filter (where p.account_id = ${lit(OPERATOR.ngnBank.id)}), 0) as bank_debit,
               coalesce(sum(${NET_CREDIT}) filter (where p.account_id = ${lit(OPERATOR.ngnSuspense.id)}), 0) as ngn_suspense_credit,
               count(p.id) as postings
          from ledger_transactions t left join ledger_postings p on p.transaction_id = t.id
         where t.kind in ('deposit_unwind', 'deposit_release')
         group by t.id, t.kind, t.deposit_id, t.payout_id
      )
      select format('%s %s of deposit %s (payout %s, %s USD, %s NGN): suspense debited %s, treasury credited %s, recoveries credited %s, ngn_bank debited %s, ngn_suspense credited %s, in %s postings',
                    l.kind, l.id, coalesce(l.deposit_id, 'null'), coalesce(l.payout_id, 'null'),
                    coalesce(po.amount::text, 'none'), coalesce(d.amount_ngn::text, 'none'),
                    l.suspense_debit, l.treasury_credit, l.recoveries_credit, l.bank_debit,
                    l.ngn_suspense_credit, l.postings) as detail
        from legs l
        left join payouts po on po.id = l.payout_id
        left join deposits d on d.id = l.deposit_id
       where po.id is null or d.id is null or po.deposit_id is distinct from d.id
          or po.status not in ('CANCELLED', 'FAILED') or l.suspense_debit <> po.amount
          or case when l.kind = 'deposit_unwind'
                  then l.treasury_credit <> po.amount or l.bank_debit <> d.amount_ngn
                       or l.ngn_suspense_credit <> d.amount_ngn or l.postings <> 4
                  else d.reversed_at is null or l.recoveries_credit <> po.amount or l.postings <> 2
             end`,
  },
  {
    name: 'usd_recoveries_matches_releases',
    description: `${RECOVERIES} holds the USD released from suspense for reversed deposits closed by an operator.`,
    sql: `
      select format('%s holds %s USD but released payouts sum to %s', ${lit(RECOVERIES)}, a.actual, e.expected) as detail
        from ${operatorBalance(RECOVERIES, 'CREDIT')} a,
             (select coalesce(sum(po.amount), 0) as expected
                from ledger_transactions t join payouts po on po.id = t.payout_id
               where t.kind = 'deposit_release') e
       where a.actual <> e.expected`,
  },
  {
    name: 'payout_per_converted_auto_withdraw_deposit',
    description:
      "A deposit has one payout per 'deposit_unwind' (each closed), plus, while it is a converted AUTO_WITHDRAW deposit, its latest one for exactly amount_asset (in base units too), to its chain and asset; other deposits have none.",
    sql: `
      with per as (
        select d.id, count(po.id) as payouts,
               count(po.id) filter (where po.status in ('CANCELLED', 'FAILED') and exists (${LEFT_SUSPENSE_SQL})) as unwound,
               (select count(*) from ledger_transactions t
                 where t.deposit_id = d.id and t.kind = 'deposit_unwind') as unwinds
          from deposits d left join payouts po on po.deposit_id = d.id
         group by d.id
      ),
      latest as (
        select distinct on (po.deposit_id) po.deposit_id, po.amount, po.amount_base_units, po.chain, po.asset
          from payouts po where po.deposit_id is not null
         order by po.deposit_id, po.created_at desc, po.id desc
      )
      select format('deposit %s (%s, %s, amount_asset %s) has %s payouts (%s unwound, %s unwinds); latest %s (%s base units) on %s %s',
                    d.id, d.settlement_mode,
                    case when d.fx_executed_at is null then 'unconverted' else 'converted' end,
                    coalesce(d.amount_asset::text, 'null'), per.payouts, per.unwound, per.unwinds,
                    coalesce(l.amount::text, 'none'), coalesce(l.amount_base_units::text, 'none'),
                    coalesce(l.chain, '-'), coalesce(l.asset, '-')) as detail
        from deposits d join per on per.id = d.id
        left join latest l on l.deposit_id = d.id
       where per.payouts <> per.unwinds
                           + case when d.settlement_mode = 'AUTO_WITHDRAW'
                                   and d.fx_executed_at is not null then 1 else 0 end
          or (d.settlement_mode = 'AUTO_WITHDRAW' and d.fx_executed_at is not null
              and (l.amount <> d.amount_asset or l.amount_base_units <> d.amount_asset * 1000000
                   or l.chain <> d.chain or l.asset <> d.asset))`,
  },
  {
    name: 'payout_status_matches_owner',
    description:
      'A SETTLED AUTO_WITHDRAW deposit has a CONFIRMED payout with its tx_hash, a PENDING_WITHDRAWAL one an open payout; a withdrawal is PENDING/BROADCAST with an open payout, COMPLETED with a CONFIRMED one and its tx_hash, FAILED with a FAILED or CANCELLED one.',
    sql: `
      select format('%s %s is %s (tx %s) but its payout %s is %s (tx %s)',
                    case when po.deposit_id is not null then 'deposit' else 'withdrawal' end,
                    coalesce(po.deposit_id, po.withdrawal_id), o.status, coalesce(o.tx_hash, 'null'),
                    po.id, po.status, coalesce(po.tx_hash, 'null')) as detail
        from payouts po
        cross join lateral (
          select d.status, d.tx_hash from deposits d where d.id = po.deposit_id
          union all
          select w.status, w.tx_hash from withdrawals w where w.id = po.withdrawal_id) o
       -- A deposit's earlier payouts (before an operator unwound them) say nothing of its status.
       where not exists (select 1 from payouts later
                          where later.deposit_id = po.deposit_id
                            and (later.created_at, later.id) > (po.created_at, po.id))
         and case
               when o.status in ('SETTLED', 'COMPLETED')
                 then (po.status <> 'CONFIRMED' and not ${REORGED_SQL})
                      or o.tx_hash is distinct from po.tx_hash
               when o.status in ('PENDING_WITHDRAWAL', 'PENDING', 'BROADCAST')
                 then po.status not in ('PENDING', 'SIGNED') or ${REORGED_SQL}
               when o.status = 'FAILED' and po.withdrawal_id is not null
                 then po.status not in ('FAILED', 'CANCELLED') and not ${REORGED_SQL}
               else false
             end`,
  },
  {
    name: 'withdrawal_requested_once',
    description:
      "Every withdrawal's payout has exactly one 'withdrawal_requested' transaction moving its amount from usd_available to usd_pending_withdrawal; no deposit payout has one.",
    sql: `
      with legs as (
        select t.payout_id, count(distinct t.id) as n,
               coalesce(sum(-(${NET_CREDIT})) filter (where p.account_id = ${merchantAccountIdSql('po.merchant_id', 'usd_available')}), 0) as available_debit,
               coalesce(sum(${NET_CREDIT}) filter (where p.account_id = ${merchantAccountIdSql('po.merchant_id', 'usd_pending_withdrawal')}), 0) as pending_credit,
               count(p.id) as postings
          from ledger_transactions t
          join payouts po on po.id = t.payout_id
          left join ledger_postings p on p.transaction_id = t.id
         where t.kind = 'withdrawal_requested'
         group by t.payout_id
      )
      select format('payout %s (%s, %s USD) has %s withdrawal_requested transactions debiting usd_available %s and crediting usd_pending_withdrawal %s in %s postings',
                    po.id, coalesce(po.withdrawal_id, po.deposit_id), po.amount, coalesce(l.n, 0),
                    coalesce(l.available_debit, 0), coalesce(l.pending_credit, 0), coalesce(l.postings, 0)) as detail
        from payouts po left join legs l on l.payout_id = po.id
       where case when po.withdrawal_id is null then l.payout_id is not null
                  else l.n is distinct from 1 or l.available_debit <> po.amount
                       or l.pending_credit <> po.amount or l.postings <> 2 end`,
  },
  {
    name: 'payout_outcome_booked_once',
    description:
      "A CONFIRMED payout has one 'payout_sent' moving its amount from its holding account to usd_treasury; a FAILED one one 'payout_failed', a CANCELLED one one 'payout_cancelled', each moving it to where it returns; one SIGNED again after a reorg keeps its one booking; other open payouts have none.",
    sql: `
      with booked as (
        select t.payout_id, t.kind, count(distinct t.id) as n,
               sum(p.amount) filter (where p.direction = 'DEBIT' and p.account_id = k.debited) as debited,
               sum(p.amount) filter (where p.direction = 'CREDIT' and p.account_id = k.credited) as credited,
               count(p.id) as postings
          from ledger_transactions t
          join payouts po on po.id = t.payout_id
          join lateral ${OUTCOME_KINDS} k(status, kind, debited, credited) on k.kind = t.kind
          left join ledger_postings p on p.transaction_id = t.id
         group by t.payout_id, t.kind
      )
      select format('payout %s is %s (%s USD) but has %s %s transaction(s), debiting %s and crediting %s in %s postings',
                    po.id, po.status, po.amount, coalesce(b.n, 0), coalesce(b.kind, 'outcome'),
                    coalesce(b.debited, 0), coalesce(b.credited, 0), coalesce(b.postings, 0)) as detail
        from payouts po
        full join booked b on b.payout_id = po.id
       where (po.status in ('CONFIRMED', 'FAILED', 'CANCELLED')
              and (b.payout_id is null
                   or b.kind <> case po.status when 'CONFIRMED' then 'payout_sent'
                                               when 'FAILED' then 'payout_failed'
                                               else 'payout_cancelled' end
                   or b.n <> 1 or b.debited <> po.amount or b.credited <> po.amount or b.postings <> 2))
          -- SIGNED again after a reorg: its one booking stands (sent or failed) until it is mined.
          or (${REORGED_SQL}
              and (b.payout_id is null or b.kind not in ('payout_sent', 'payout_failed')
                   or b.n <> 1 or b.debited <> po.amount or b.credited <> po.amount or b.postings <> 2))
          or (po.status in ('PENDING', 'SIGNED') and not ${REORGED_SQL} and b.payout_id is not null)`,
  },
  {
    name: 'hot_wallet_nonces_contiguous',
    description:
      'Per chain and hot wallet, the nonces of signed payouts are distinct and contiguous, and the nonce row is one past the last.',
    sql: `
      with used as (
        select chain, from_address as address, count(*) as n, count(distinct nonce) as distinct_n,
               min(nonce) as first, max(nonce) as last
          from payouts where nonce is not null group by chain, from_address
      )
      select format('%s wallet %s: %s payouts use %s distinct nonces from %s to %s; the nonce row says next %s',
                    coalesce(u.chain, h.chain), coalesce(u.address, h.address), coalesce(u.n, 0),
                    coalesce(u.distinct_n, 0), coalesce(u.first::text, '-'), coalesce(u.last::text, '-'),
                    coalesce(h.next_nonce::text, 'missing')) as detail
        from used u full join hot_wallet_nonces h on h.chain = u.chain and h.address = u.address
       where u.chain is null
          or u.n <> u.distinct_n or u.last - u.first + 1 <> u.n
          or h.next_nonce is distinct from u.last + 1`,
  },
];
