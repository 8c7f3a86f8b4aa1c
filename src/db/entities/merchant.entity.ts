import { Entity, Enum, PrimaryKey, Property } from '@mikro-orm/core';

export enum MerchantStatus {
  ACTIVE = 'ACTIVE',
  FROZEN = 'FROZEN',
}

@Entity({ tableName: 'merchants' })
export class Merchant {
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  name!: string;

  @Enum({ items: () => MerchantStatus, type: 'text' })
  status: MerchantStatus = MerchantStatus.ACTIVE;

  /** Null: the deployment's default (on in production); see `addressBookRequired`. */
  @Property({ type: 'boolean', nullable: true })
  requireAddressBook: boolean | null = null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;
}
