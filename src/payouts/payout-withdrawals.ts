import type { EntityManager } from '@mikro-orm/postgresql';
import { TEXT_ARRAY, textArray } from '../db/text-array';

/**
 * Of these payouts, the withdrawal each one pays (payouts of AUTO_WITHDRAW deposits pay none):
 * how a ledger line that names a payout is shown to the merchant, who knows withdrawal ids.
 * Scoped to the merchant, so another merchant's payout id maps to nothing.
 */
export async function withdrawalsOfPayouts(
  em: EntityManager,
  merchantId: string,
  payoutIds: readonly string[],
): Promise<Map<string, string>> {
  if (payoutIds.length === 0) return new Map();
  const rows = await em.getConnection().execute<Array<{ id: string; withdrawal_id: string }>>(
    `select p.id, p.withdrawal_id from payouts p
      where p.id = any(${TEXT_ARRAY}) and p.merchant_id = ? and p.withdrawal_id is not null`,
    [textArray([...payoutIds]), merchantId],
  );
  return new Map(rows.map((r) => [r.id, r.withdrawal_id]));
}
