import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Payout } from './payout.entity';

/** A payout as other modules see it: read-only outside this module. */
export type PayoutRecord = Readonly<Payout>;

/** The deposit's newest payout (null: none), for a resolution's plan. */
export function latestPayoutOf(tx: EntityManager, depositId: string): Promise<Payout | null> {
  return tx.findOne(Payout, { depositId }, { orderBy: { createdAt: 'desc', id: 'desc' } });
}

/** The deposit's PENDING payout, locked FOR UPDATE (null: none pending). */
export function lockPendingPayoutOf(tx: EntityManager, depositId: string): Promise<Payout | null> {
  return tx.findOne(
    Payout,
    { depositId, status: 'PENDING' },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
}
