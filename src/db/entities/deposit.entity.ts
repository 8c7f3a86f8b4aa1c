import { Entity, Enum, PrimaryKey, Property } from '@mikro-orm/core';
import type { DepositStatus } from '../../domain/deposit-state-machine';
import { SettlementMode } from './onramp.entity';

/**
 * One NGN bank transfer into an onramp's virtual account. Status changes go through
 * DepositService.moveTo; the trigger `deposits_status_event` refuses moves outside the
 * transition table and writes the outbox event of each entry.
 */
@Entity({ tableName: 'deposits' })
export class Deposit {
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  onrampId!: string;

  @Property({ type: 'text' })
  merchantId!: string;

  @Property({ type: 'text' })
  paymentReference!: string;

  @Property({ type: 'text' })
  userEmail!: string;

  @Property({ type: 'text' })
  accountNumber!: string;

  @Property({ type: 'text' })
  bankReference!: string;

  /** NGN received, exactly 2 decimals (numeric in PostgreSQL, string here). */
  @Property({ type: 'decimal', precision: 20, scale: 2 })
  amountNgn!: string;

  @Property({ type: 'text', nullable: true })
  rateId!: string | null;

  /** Asset units after conversion, 6 decimals rounded down; null until known. */
  @Property({ type: 'decimal', precision: 26, scale: 6, nullable: true })
  amountAsset!: string | null;

  /** USD counted against the daily limits (the amount at the applied rate at receipt). */
  @Property({ type: 'decimal', precision: 26, scale: 6 })
  limitUsd!: string;

  @Property({ type: 'text', nullable: true })
  asset!: string | null;

  @Property({ type: 'text', nullable: true })
  chain!: string | null;

  @Enum({ items: () => SettlementMode, type: 'text' })
  settlementMode!: SettlementMode;

  @Property({ type: 'text', nullable: true })
  txHash!: string | null;

  @Property({ type: 'text' })
  status!: DepositStatus;

  @Property({ type: 'text', nullable: true })
  failureReason!: string | null;

  @Property({ type: 'text', nullable: true })
  flagReason!: string | null;

  // Sender details: stored for operations, never exposed through the API (spec, v0.1).
  @Property({ type: 'text', nullable: true, hidden: true })
  senderName!: string | null;

  @Property({ type: 'text', nullable: true, hidden: true })
  senderAccount!: string | null;

  @Property({ type: 'text', nullable: true, hidden: true })
  senderBank!: string | null;

  /** Africa/Lagos day of receipt: the day whose limits the deposit counts against. */
  @Property({ type: 'string', columnType: 'date' })
  lagosDay!: string;

  @Property({ type: 'timestamptz', nullable: true })
  fxExecutedAt!: Date | null;

  /** The venue order of a re-conversion after an operator unwound the first; null: the deposit id. */
  @Property({ type: 'text', nullable: true })
  fxOrderId: string | null = null;

  /** The settlement run holding this PENDING_FX deposit (its FX order placed, fill not applied). */
  @Property({ type: 'text', nullable: true })
  settleClaim: string | null = null;

  /** When another run may claim the deposit again (the holder presumed dead). */
  @Property({ type: 'timestamptz', nullable: true })
  settleClaimExpiresAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  reversedAt!: Date | null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  settledAt!: Date | null;
}
