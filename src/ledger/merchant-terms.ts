import type { EntityManager } from '@mikro-orm/postgresql';
import { executeInTransaction } from '../db/locks';
import type { ReserveTerms, ReversalLiability } from '../domain/reserves';

/**
 * What the operator set for a merchant's balance (`merchant_ledger_terms`): who bears its
 * reversals (null: the deployment's `REVERSAL_LIABILITY`) and its reserve (null: none).
 */
export interface MerchantLedgerTerms {
  merchantId: string;
  reversalLiability: ReversalLiability | null;
  reserve: ReserveTerms | null;
}

interface TermsRow {
  merchant_id: string;
  reversal_liability: ReversalLiability | null;
  reserve_percent_bps: number | null;
  reserve_hold_days: number | null;
}

const SELECT = `select merchant_id, reversal_liability, reserve_percent_bps, reserve_hold_days
                  from merchant_ledger_terms`;

function fromRow(merchantId: string, row: TermsRow | undefined): MerchantLedgerTerms {
  return {
    merchantId,
    reversalLiability: row?.reversal_liability ?? null,
    reserve:
      row && row.reserve_percent_bps !== null && row.reserve_hold_days !== null
        ? { percentBps: Number(row.reserve_percent_bps), holdDays: Number(row.reserve_hold_days) }
        : null,
  };
}

/** The terms of these merchants (merchants without a row: the defaults), in the transaction. */
export async function termsOfMerchants(
  tx: EntityManager,
  merchantIds: readonly string[],
): Promise<Map<string, MerchantLedgerTerms>> {
  const ids = [...new Set(merchantIds)];
  if (ids.length === 0) return new Map();
  const rows = await executeInTransaction<TermsRow>(
    tx,
    `${SELECT} where merchant_id in (${ids.map(() => '?').join(', ')})`,
    ids,
  );
  return new Map(
    ids.map((id) => [
      id,
      fromRow(
        id,
        rows.find((r) => r.merchant_id === id),
      ),
    ]),
  );
}

/** Outside a transaction (reads for the admin API and the command line). */
export async function readMerchantTerms(
  em: EntityManager,
  merchantId: string,
): Promise<MerchantLedgerTerms> {
  const rows = await em
    .getConnection()
    .execute<TermsRow[]>(`${SELECT} where merchant_id = ?`, [merchantId]);
  return fromRow(merchantId, rows[0]);
}

/**
 * Sets one of the terms, keeping the other, and answers both as they were and are now (the
 * caller audits them). The merchant must exist and be locked by the caller.
 */
export async function writeMerchantTerms(
  tx: EntityManager,
  merchantId: string,
  change: { reversalLiability: ReversalLiability } | { reserve: ReserveTerms | null },
  now: Date,
): Promise<{ before: MerchantLedgerTerms; after: MerchantLedgerTerms }> {
  const before = (await termsOfMerchants(tx, [merchantId])).get(merchantId)!;
  const after: MerchantLedgerTerms = { ...before, ...change };
  await executeInTransaction(
    tx,
    `insert into merchant_ledger_terms
       (merchant_id, reversal_liability, reserve_percent_bps, reserve_hold_days, updated_at)
     values (?, ?, ?, ?, ?)
     on conflict (merchant_id) do update
       set reversal_liability = excluded.reversal_liability,
           reserve_percent_bps = excluded.reserve_percent_bps,
           reserve_hold_days = excluded.reserve_hold_days,
           updated_at = excluded.updated_at`,
    [
      merchantId,
      after.reversalLiability,
      after.reserve?.percentBps ?? null,
      after.reserve?.holdDays ?? null,
      now,
    ],
  );
  return { before, after };
}
