import { Entity, Enum, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { Merchant } from './merchant.entity';

export enum KeyEnvironment {
  Sandbox = 'sandbox',
  Production = 'production',
}

/** A secret API key, stored only as its SHA-256 hash; the plain key is shown once at issue. */
@Entity({ tableName: 'api_keys' })
export class ApiKey {
  @PrimaryKey({ type: 'text' })
  id!: string;

  @ManyToOne(() => Merchant, { fieldName: 'merchant_id' })
  merchant!: Merchant;

  @Property({ type: 'text', unique: true })
  keyHash!: string;

  /** First characters of the key (`sk_test_abcd`), so operators can tell keys apart. */
  @Property({ type: 'text' })
  keyPrefix!: string;

  @Enum({ items: () => KeyEnvironment, type: 'text' })
  environment!: KeyEnvironment;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null = null;
}
