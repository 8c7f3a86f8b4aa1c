import { Entity, Enum, PrimaryKey, Property } from '@mikro-orm/core';
import { OnrampType, OnrampStatus, SettlementMode } from '../domain/onramp-kinds';
export { OnrampType, OnrampStatus, SettlementMode };

/**
 * An onramp: one virtual account for one end user. Settlement columns, type, rate and account
 * are fixed at creation (trigger `onramps_settlement_immutable`).
 */
@Entity({ tableName: 'onramps' })
export class Onramp {
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  merchantId!: string;

  @Enum({ items: () => OnrampType, type: 'text' })
  type!: OnrampType;

  @Enum({ items: () => OnrampStatus, type: 'text' })
  status!: OnrampStatus;

  @Property({ type: 'text', nullable: true })
  rateId!: string | null;

  @Property({ type: 'text' })
  paymentReference!: string;

  @Property({ type: 'text' })
  accountNumber!: string;

  @Property({ type: 'text' })
  accountName!: string;

  @Property({ type: 'text' })
  bankName!: string;

  @Property({ type: 'text' })
  bankCode!: string;

  @Property({ type: 'text' })
  userEmail!: string;

  @Enum({ items: () => SettlementMode, type: 'text' })
  settlementMode!: SettlementMode;

  @Property({ type: 'text', nullable: true })
  settlementAsset!: string | null;

  @Property({ type: 'text', nullable: true })
  settlementChain!: string | null;

  @Property({ type: 'text', nullable: true })
  destinationAddress!: string | null;

  @Property({ type: 'text', hidden: true })
  clientSecretHash!: string;

  /** The amount the merchant expects (THROWAWAY, EPHEMERAL); null when not set. */
  @Property({ type: 'decimal', precision: 20, scale: 2, nullable: true })
  amountNgn: string | null = null;

  /** The name the merchant expects the transfer from; null when not set. */
  @Property({ type: 'text', nullable: true })
  payerName: string | null = null;

  /**
   * The payer's customer record (names, phone, BVN, NIN) as JSON, sealed with ENCRYPTION_KEY
   * (src/onramps/onramp-customer-store.ts); null when none was given. Lazy: reads of the onramp
   * never load it, the plain columns below answer what is shown.
   */
  @Property({ type: 'text', nullable: true, hidden: true, lazy: true })
  customerSealed: string | null = null;

  /** The customer fields given (`first_name`, `last_name`, `phone`, `bvn`, `nin`); null: none. */
  @Property({ type: 'text[]', nullable: true })
  customerFields: string[] | null = null;

  @Property({ type: 'text', nullable: true })
  customerBvnLast4: string | null = null;

  @Property({ type: 'text', nullable: true })
  customerNinLast4: string | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;
}
