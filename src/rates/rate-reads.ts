import type { EntityManager } from '@mikro-orm/postgresql';
import { Rate } from './rate.entity';

/** A published rate, which must exist (a deposit references it). */
export function getRate(tx: EntityManager, rateId: string): Promise<Readonly<Rate>> {
  return tx.findOneOrFail(Rate, { id: rateId });
}

/** The newest rate to `to` still valid at `now` (null: none). */
export function newestValidRate(
  tx: EntityManager,
  to: string,
  now: Date,
): Promise<Readonly<Rate> | null> {
  return tx.findOne(Rate, { to, expiresAt: { $gt: now } }, { orderBy: { createdAt: 'desc' } });
}
