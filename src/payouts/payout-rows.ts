import type { EntityManager } from '@mikro-orm/postgresql';
import type { Hex } from 'viem';
import type { Payout } from './payout.entity';
import { executeInTransaction } from '../db/locks';
import type { Fees } from '../domain/payout-rules';

export { lockedPayout } from './payout-store';

/** One signed transaction of a payout, as stored: a retry resends exactly these bytes. */
export interface StoredTransaction {
  hash: Hex;
  raw_tx: Hex;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  created_at: Date | string;
}

/** Records signed bytes before anything is broadcast (in the signing transaction). */
export async function storeTransaction(
  tx: EntityManager,
  payout: Payout,
  signed: { nonce: number; hash: Hex; raw: Hex; fees: Fees },
  now: Date,
): Promise<void> {
  await executeInTransaction(
    tx,
    `insert into payout_transactions
       (hash, payout_id, nonce, raw_tx, max_fee_per_gas, max_priority_fee_per_gas, created_at)
     values (?, ?, ?, ?, ?, ?, ?)`,
    [
      signed.hash,
      payout.id,
      signed.nonce,
      signed.raw,
      signed.fees.maxFeePerGas.toString(),
      signed.fees.maxPriorityFeePerGas.toString(),
      now,
    ],
  );
}

/** A signing batch's transactions, in one statement (see storeTransaction). */
export async function storeTransactions(
  tx: EntityManager,
  signed: Array<{ payoutId: string; nonce: number; hash: Hex; raw: Hex; fees: Fees }>,
  now: Date,
): Promise<void> {
  if (signed.length === 0) return;
  // Rows travel as one JSON parameter (knex would expand an array into a list).
  const rows = signed.map((s) => ({
    hash: s.hash,
    payout_id: s.payoutId,
    nonce: s.nonce,
    raw_tx: s.raw,
    max_fee: s.fees.maxFeePerGas.toString(),
    max_priority_fee: s.fees.maxPriorityFeePerGas.toString(),
  }));
  await executeInTransaction(
    tx,
    `insert into payout_transactions
       (hash, payout_id, nonce, raw_tx, max_fee_per_gas, max_priority_fee_per_gas, created_at)
     select r.hash, r.payout_id, r.nonce, r.raw_tx, r.max_fee, r.max_priority_fee, ?::timestamptz
       from jsonb_to_recordset(?::jsonb)
            as r(hash text, payout_id text, nonce bigint, raw_tx text, max_fee numeric,
                 max_priority_fee numeric)`,
    [now, JSON.stringify(rows)],
  );
}

/** The payout's signed transactions, newest first. */
export function storedTransactions(
  em: EntityManager,
  payoutId: string,
): Promise<StoredTransaction[]> {
  return em
    .fork()
    .getConnection()
    .execute<StoredTransaction[]>(
      `select hash, raw_tx, max_fee_per_gas::text, max_priority_fee_per_gas::text, created_at
         from payout_transactions where payout_id = ? order by created_at desc, hash`,
      [payoutId],
    );
}

/**
 * Of these transaction hashes (a block's), those of SIGNED payouts on `chain`, with their
 * payout: the current hash or any earlier one a fee bump replaced. One statement whatever
 * the number of hashes (they travel as one JSON parameter).
 */
export function signedPayoutsAmong(
  em: EntityManager,
  chain: string,
  hashes: Hex[],
): Promise<Array<{ hash: Hex; payout_id: string }>> {
  return em
    .fork()
    .getConnection()
    .execute(
      `select t.hash, t.payout_id
         from payout_transactions t join payouts p on p.id = t.payout_id
        where t.hash in (select jsonb_array_elements_text(?::jsonb))
          and p.chain = ? and p.status = 'SIGNED'`,
      [JSON.stringify(hashes.map((h) => h.toLowerCase())), chain],
    );
}
