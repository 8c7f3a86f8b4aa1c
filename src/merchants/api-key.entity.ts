import { Entity, Enum, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { KeyEnvironment } from '../domain/key-environment';
export { KeyEnvironment };
import { Merchant } from './merchant.entity';

/** A secret or restricted API key, stored only as its SHA-256 hash; the plain key is shown once at issue. */
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

  /** The merchant's label; null for keys the operator issued (`keys issue`). */
  @Property({ type: 'text', nullable: true })
  name: string | null = null;

  /** `['all']` for a secret key (`sk_`); any other list makes a restricted key (`rk_`). */
  @Property({ type: 'text[]' })
  scopes: string[] = ['all'];

  /** IPv4/IPv6 addresses and CIDRs the key may be used from; null: any address. */
  @Property({ type: 'text[]', nullable: true })
  allowedIps: string[] | null = null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null = null;
}
