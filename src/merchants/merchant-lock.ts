import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Merchant } from './merchant.entity';

/** A merchant as other modules and flows see it: read-only outside this module. */
export type MerchantRecord = Readonly<Merchant>;

/**
 * The merchant's row, locked FOR UPDATE in `tx` (null: no such merchant), for a flow that
 * changes it (freeze, unfreeze) under the lock.
 */
export function lockMerchant(tx: EntityManager, merchantId: string): Promise<Merchant | null> {
  return tx.findOne(Merchant, { id: merchantId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
}
