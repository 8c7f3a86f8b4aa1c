import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Deposit } from './deposit.entity';

/** A deposit as other modules and flows see it: read-only outside this module. */
export type DepositRecord = Readonly<Deposit>;

/** The deposit's row, locked FOR UPDATE in `tx` (null: no such deposit). */
export function lockDeposit(tx: EntityManager, depositId: string): Promise<Deposit | null> {
  return tx.findOne(Deposit, { id: depositId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
}
