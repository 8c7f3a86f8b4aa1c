import type { EntityManager } from '@mikro-orm/postgresql';
import type { SanctionsMatch } from '../domain/sanctions-screening';
import { onrampDestinations } from '../onramps/onramp-sql';
import type { ClaimedDeposit } from './settlement-claim';

/** A claimed deposit whose onramp's destination is on the sanctions list: it pays nothing. */
export interface Stopped {
  address: string;
  listDate: string | null;
}

/**
 * The claimed deposits whose onramp pays out to a listed address (one short read), checked
 * before any FX order so a listed destination's deposit is not converted at all.
 */
export async function screenClaimed(
  em: EntityManager,
  claimed: ClaimedDeposit[],
  sanctions: SanctionsMatch | undefined,
): Promise<Map<string, Stopped>> {
  const stopped = new Map<string, Stopped>();
  if (!sanctions) return stopped;
  await em.fork().transactional(async (tx) => {
    const addressOf = await onrampDestinations(tx, [...new Set(claimed.map((c) => c.onrampId))]);
    if (addressOf.size === 0) return;
    const { listDate, listed } = await sanctions.listedAmong(tx, [...addressOf.values()]);
    for (const c of claimed) {
      const address = addressOf.get(c.onrampId);
      if (address && listed.has(address.toLowerCase())) stopped.set(c.id, { address, listDate });
    }
  });
  return stopped;
}
