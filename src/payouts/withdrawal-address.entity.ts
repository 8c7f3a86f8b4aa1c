import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * An entry of a merchant's withdrawal address book. Its status is not a column: ACTIVE once
 * `activeAt` has passed on the clock (`src/domain/withdrawal-addresses.ts`). Deleted entries
 * keep their row with `deletedAt` set and are never listed or usable again.
 */
@Entity({ tableName: 'withdrawal_addresses' })
export class WithdrawalAddress {
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  merchantId!: string;

  @Property({ type: 'text' })
  chain!: string;

  /** EIP-55 checksummed, as withdrawals store their destination. */
  @Property({ type: 'text' })
  address!: string;

  @Property({ type: 'text', nullable: true })
  label!: string | null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  activeAt!: Date;

  /** When `withdrawal_address.activated` was written (the job's once-only mark). */
  @Property({ type: 'timestamptz', nullable: true })
  activatedAt!: Date | null;

  @Property({ type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
