import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { PayoutStatus } from '../domain/payout-lifecycle';

/** The lifecycle and its table: `src/domain/payout-lifecycle.ts`. */
export type { PayoutStatus };

/** One on-chain transfer we owe: for an AUTO_WITHDRAW deposit or a merchant withdrawal. */
@Entity({ tableName: 'payouts' })
export class Payout {
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text', nullable: true })
  depositId!: string | null;

  @Property({ type: 'text', nullable: true })
  withdrawalId!: string | null;

  @Property({ type: 'text' })
  merchantId!: string;

  @Property({ type: 'text' })
  chain!: string;

  @Property({ type: 'text' })
  asset!: string;

  @Property({ type: 'text' })
  toAddress!: string;

  @Property({ type: 'decimal', precision: 26, scale: 6 })
  amount!: string;

  /** `amount` in the token's base units (6 decimals), exactly. */
  @Property({ type: 'decimal', precision: 78, scale: 0 })
  amountBaseUnits!: string;

  @Property({ type: 'text' })
  status!: PayoutStatus;

  @Property({ type: 'text', nullable: true })
  fromAddress!: string | null;

  @Property({ type: 'text', nullable: true })
  tokenAddress!: string | null;

  @Property({ type: 'bigint', nullable: true })
  nonce!: string | null;

  /** The newest signed transaction's hash; once mined, the hash that was mined. */
  @Property({ type: 'text', nullable: true })
  txHash!: string | null;

  @Property({ type: 'timestamptz', nullable: true })
  signedAt!: Date | null;

  @Property({ type: 'timestamptz', nullable: true })
  broadcastAt!: Date | null;

  @Property({ type: 'timestamptz', nullable: true })
  lastBroadcastAt!: Date | null;

  @Property({ type: 'timestamptz', nullable: true })
  confirmedAt!: Date | null;

  @Property({ type: 'bigint', nullable: true })
  blockNumber!: string | null;

  /** The hash of the block it was booked from: a reorg that replaces that block unsettles it. */
  @Property({ type: 'text', nullable: true })
  blockHash!: string | null;

  /** Set when a reorg took a booked payout back to SIGNED: booking it again posts nothing. */
  @Property({ type: 'timestamptz', nullable: true })
  reorgedAt!: Date | null;

  @Property({ type: 'text', nullable: true })
  cancelReason!: string | null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;
}
