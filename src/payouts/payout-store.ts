import type { EntityManager } from '@mikro-orm/postgresql';
import { Payout } from './payout.entity';
import { executeInTransaction } from '../db/locks';
import type { PayoutStatus } from '../domain/payout-lifecycle';
import { movePayoutRows } from './payout-transitions';

/**
 * Payout rows in plain SQL, for the stages every payout passes through (create, sign,
 * broadcast, settle). The ORM's unit of work costs the job runner more CPU per payout than the
 * statements themselves (bench/notes/payouts-profile.md), and these stages only ever lock rows,
 * move them with `movePayout` and write them back. Rows are plain `Payout` objects, not
 * managed entities: a stage that changes one writes it with `savePayouts`, never a flush.
 */

/** Timestamps travel as epoch milliseconds: the ORM's pg setup leaves them as text. */
const epochMs = (column: string) => `(extract(epoch from ${column}) * 1000)::float8 as ${column}`;

const SELECT_PAYOUT = `select id, deposit_id, withdrawal_id, merchant_id, chain, asset, to_address,
    amount::text as amount, amount_base_units::text as amount_base_units, status, from_address,
    token_address, nonce::text as nonce, tx_hash, ${epochMs('signed_at')},
    ${epochMs('broadcast_at')}, ${epochMs('last_broadcast_at')}, ${epochMs('confirmed_at')},
    block_number::text as block_number, block_hash, ${epochMs('reorged_at')}, cancel_reason,
    ${epochMs('created_at')},
    ${epochMs('updated_at')}
  from payouts`;

interface PayoutRow {
  id: string;
  deposit_id: string | null;
  withdrawal_id: string | null;
  merchant_id: string;
  chain: string;
  asset: string;
  to_address: string;
  amount: string;
  amount_base_units: string;
  status: PayoutStatus;
  from_address: string | null;
  token_address: string | null;
  nonce: string | null;
  tx_hash: string | null;
  signed_at: number | null;
  broadcast_at: number | null;
  last_broadcast_at: number | null;
  confirmed_at: number | null;
  block_number: string | null;
  block_hash: string | null;
  reorged_at: number | null;
  cancel_reason: string | null;
  created_at: number;
  updated_at: number;
}

const dateOf = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

function payoutOf(row: PayoutRow): Payout {
  return Object.assign(new Payout(), {
    id: row.id,
    depositId: row.deposit_id,
    withdrawalId: row.withdrawal_id,
    merchantId: row.merchant_id,
    chain: row.chain,
    asset: row.asset,
    toAddress: row.to_address,
    amount: row.amount,
    amountBaseUnits: row.amount_base_units,
    status: row.status,
    fromAddress: row.from_address,
    tokenAddress: row.token_address,
    nonce: row.nonce,
    txHash: row.tx_hash,
    signedAt: dateOf(row.signed_at),
    broadcastAt: dateOf(row.broadcast_at),
    lastBroadcastAt: dateOf(row.last_broadcast_at),
    confirmedAt: dateOf(row.confirmed_at),
    blockNumber: row.block_number,
    blockHash: row.block_hash,
    reorgedAt: dateOf(row.reorged_at),
    cancelReason: row.cancel_reason,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  });
}

/**
 * These payouts, locked until the transaction ends (every status change holds its row's
 * lock), in `order`; with `status`, only those in it once the lock is granted (PostgreSQL
 * rechecks the condition on a row that moved meanwhile).
 */
export async function lockPayouts(
  tx: EntityManager,
  ids: string[],
  options: { order: 'id' | 'created'; status?: PayoutStatus | PayoutStatus[] },
): Promise<Payout[]> {
  if (ids.length === 0) return [];
  const order = options.order === 'id' ? 'id' : 'created_at, id';
  const rows = await executeInTransaction<PayoutRow>(
    tx,
    `${SELECT_PAYOUT}
      where id in (select jsonb_array_elements_text(?::jsonb))
        ${options.status ? 'and status in (select jsonb_array_elements_text(?::jsonb))' : ''}
      order by ${order} for update`,
    options.status
      ? [JSON.stringify(ids), JSON.stringify([options.status].flat())]
      : [JSON.stringify(ids)],
  );
  return rows.map(payoutOf);
}

/** One payout, locked until the transaction ends. */
export async function lockedPayout(tx: EntityManager, id: string): Promise<Payout | null> {
  const [payout] = await lockPayouts(tx, [id], { order: 'id' });
  return payout ?? null;
}

/** Every column a row's life can write, as one JSON record (dates as ISO strings). */
function recordOf(p: Payout) {
  return {
    id: p.id,
    deposit_id: p.depositId,
    withdrawal_id: p.withdrawalId,
    merchant_id: p.merchantId,
    chain: p.chain,
    asset: p.asset,
    to_address: p.toAddress,
    amount: p.amount,
    amount_base_units: p.amountBaseUnits,
    status: p.status,
    from_address: p.fromAddress,
    token_address: p.tokenAddress,
    nonce: p.nonce,
    tx_hash: p.txHash,
    signed_at: p.signedAt,
    broadcast_at: p.broadcastAt,
    last_broadcast_at: p.lastBroadcastAt,
    confirmed_at: p.confirmedAt,
    block_number: p.blockNumber,
    block_hash: p.blockHash ?? null,
    reorged_at: p.reorgedAt ?? null,
    cancel_reason: p.cancelReason,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  };
}

const RECORD_COLUMNS = `r(id text, deposit_id text, withdrawal_id text, merchant_id text,
  chain text, asset text, to_address text, amount numeric, amount_base_units numeric,
  status text, from_address text, token_address text, nonce bigint, tx_hash text,
  signed_at timestamptz, broadcast_at timestamptz, last_broadcast_at timestamptz,
  confirmed_at timestamptz, block_number bigint, block_hash text, reorged_at timestamptz,
  cancel_reason text, created_at timestamptz, updated_at timestamptz)`;

/**
 * New payouts (each already moved to its first status), in one statement, each with the trace
 * context it was created in (`traces`, by payout id; only written here, read by the signer).
 */
export async function insertPayouts(
  tx: EntityManager,
  payouts: Payout[],
  traces: ReadonlyMap<string, string | null> = new Map(),
): Promise<void> {
  if (payouts.length === 0) return;
  await executeInTransaction(
    tx,
    `insert into payouts (id, deposit_id, withdrawal_id, merchant_id, chain, asset, to_address,
       amount, amount_base_units, status, from_address, token_address, nonce, tx_hash,
       signed_at, broadcast_at, last_broadcast_at, confirmed_at, block_number, block_hash,
       reorged_at, cancel_reason, created_at, updated_at, trace_parent)
     select r.* from jsonb_to_recordset(?::jsonb) as ${RECORD_COLUMNS.replace(/\)$/, ', trace_parent text)')}`,
    [
      JSON.stringify(
        payouts.map((p) => ({ ...recordOf(p), trace_parent: traces.get(p.id) ?? null })),
      ),
    ],
  );
}

const WRITE_BACK = movePayoutRows('p.status', 'r.status');

/**
 * Writes back payouts this transaction locked and changed (through `movePayout`, or the
 * broadcast times), in one statement: every column a payout's life changes. A row whose stored
 * status does not allow its move is not written, and the call throws.
 */
export async function savePayouts(tx: EntityManager, payouts: Payout[]): Promise<void> {
  if (payouts.length === 0) return;
  const written = await executeInTransaction<{ id: string }>(
    tx,
    `update payouts as p
        set ${WRITE_BACK.set}, from_address = r.from_address, token_address = r.token_address,
            nonce = r.nonce, tx_hash = r.tx_hash, signed_at = r.signed_at,
            broadcast_at = r.broadcast_at, last_broadcast_at = r.last_broadcast_at,
            confirmed_at = r.confirmed_at, block_number = r.block_number,
            block_hash = r.block_hash, reorged_at = r.reorged_at, cancel_reason = r.cancel_reason, updated_at = r.updated_at
       from jsonb_to_recordset(?::jsonb) as ${RECORD_COLUMNS}
      where p.id = r.id and ${WRITE_BACK.allowed}
      returning p.id`,
    [JSON.stringify(payouts.map(recordOf))],
  );
  const done = new Set(written.map((row) => row.id));
  const refused = [...new Set(payouts.map((p) => p.id))].filter((id) => !done.has(id));
  if (refused.length > 0) {
    throw new Error(`payouts ${refused.join(', ')}: stored status does not allow their move`);
  }
}
