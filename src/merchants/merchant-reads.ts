import type { EntityManager } from '@mikro-orm/postgresql';
import { Merchant } from './merchant.entity';
import type { MerchantRecord } from './merchant-lock';

/** The merchant (null: none), for other modules' checks (status, payment rules, name). */
export function findMerchant(
  em: EntityManager,
  merchantId: string,
): Promise<MerchantRecord | null> {
  return em.findOne(Merchant, { id: merchantId });
}

/** The merchant, which must exist (a row that references it does). */
export function getMerchant(em: EntityManager, merchantId: string): Promise<MerchantRecord> {
  return em.findOneOrFail(Merchant, { id: merchantId });
}
