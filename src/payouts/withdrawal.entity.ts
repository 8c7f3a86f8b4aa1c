import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { WithdrawalStatus } from '../domain/payout-lifecycle';

/** The lifecycle and its table: `src/domain/payout-lifecycle.ts`. */
export type { WithdrawalStatus };

/**
 * A merchant's withdrawal of its USD balance as a stablecoin. Its amount moves from
 * usd_available to usd_pending_withdrawal when it is accepted, and leaves the ledger when the
 * transfer confirms (or returns to available when it fails). The trigger
 * `withdrawals_status_event` writes `withdrawal.completed` / `withdrawal.failed` to the outbox.
 */
@Entity({ tableName: 'withdrawals' })
export class Withdrawal {
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  merchantId!: string;

  /** USD, 6 decimals; sent as the same number of stablecoin units (USD = USDC = USDT in v0.1). */
  @Property({ type: 'decimal', precision: 26, scale: 6 })
  amount!: string;

  @Property({ type: 'text' })
  asset!: string;

  @Property({ type: 'text' })
  chain!: string;

  @Property({ type: 'text' })
  destinationAddress!: string;

  @Property({ type: 'text' })
  status!: WithdrawalStatus;

  @Property({ type: 'text', nullable: true })
  txHash!: string | null;

  /** Internal only: never part of the API's Withdrawal. */
  @Property({ type: 'text', nullable: true, hidden: true })
  failureReason!: string | null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;
}
