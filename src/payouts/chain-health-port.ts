import type { EntityManager } from '@mikro-orm/postgresql';

/** What a probe of a chain's node found. */
export type ChainProbe = { healthy: true; head: bigint } | { healthy: false; detail: string };

/**
 * What payouts need to know of the chains' health (the system module's ChainHealthService
 * implements it; the composition root hands it over), so payouts import no other module.
 */
export interface ChainHealth {
  /** Why payouts on this chain wait for this merchant now, or null: they may go. */
  unavailable(em: EntityManager, chain: string, merchantId: string): Promise<string | null>;
  probe(em: EntityManager, chain: string): Promise<ChainProbe>;
  /** Records a node failure; answers the reason recorded. */
  record(em: EntityManager, chain: string, error: unknown, head?: bigint): Promise<string>;
}
