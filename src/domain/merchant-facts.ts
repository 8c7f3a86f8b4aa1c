import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * A merchant's fields other modules decide by (status, settings), as the merchants module's
 * `getMerchant` returns them; modules take a lookup of this shape instead of importing it.
 */
export interface MerchantFacts {
  name: string;
  status: string;
  requireAddressBook: boolean | null;
  payerResolution: Record<string, unknown> | null;
  pendingSettings: object[] | null;
}

/** The merchant, which must exist (a row that references it does). */
export type MerchantLookup = (em: EntityManager, merchantId: string) => Promise<MerchantFacts>;
