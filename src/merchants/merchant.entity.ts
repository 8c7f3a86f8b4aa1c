import { Entity, Enum, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { MerchantStatus } from '../domain/merchant-status';
export { MerchantStatus };

@Entity({ tableName: 'merchants' })
export class Merchant {
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  name!: string;

  @Enum({ items: () => MerchantStatus, type: 'text' })
  status!: MerchantStatus;

  /** Null: the deployment's default (on in production); see `addressBookRequired`. */
  @Property({ type: 'boolean', nullable: true })
  requireAddressBook: boolean | null = null;

  /** Payment rules (issue 22), null: the default (see `src/domain/payment-rules.ts`). */
  @Property({ type: 'json', nullable: true })
  underpayment: Opt<Record<string, unknown>> | null = null;

  @Property({ type: 'json', nullable: true })
  overpayment: Opt<Record<string, unknown>> | null = null;

  @Property({ type: 'json', nullable: true })
  payerNameCheck: Opt<Record<string, unknown>> | null = null;

  /** `{allow_settle}` for payer resolution links; null: the default (no settle offered). */
  @Property({ type: 'json', nullable: true })
  payerResolution: Opt<Record<string, unknown>> | null = null;

  /** Widening changes waiting for their delay (issue 32); null: none. See settings-widening. */
  @Property({ type: 'json', nullable: true })
  pendingSettings: Opt<object[]> | null = null;

  /** Browser origins allowed to use client secrets (`https://host[:port]`); empty: none. */
  @Property({ type: 'text[]' })
  allowedOrigins: Opt<string[]> = [];

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;
}
