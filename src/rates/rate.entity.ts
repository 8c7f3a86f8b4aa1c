import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * A published quote. Rows are immutable: the database refuses UPDATE and DELETE
 * (trigger `rates_immutable`), so a rate can never be modified, extended or back-dated.
 * Decimal columns are read as strings and only ever handled as Decimals.
 */
@Entity({ tableName: 'rates' })
export class Rate {
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text', fieldName: 'from_currency' })
  from!: string;

  @Property({ type: 'text', fieldName: 'to_currency' })
  to!: string;

  /** Mid-market NGN per unit before the fee. */
  @Property({ type: 'decimal', precision: 30, scale: 12, fieldName: 'market_rate' })
  marketRate!: string;

  @Property({ type: 'decimal', precision: 30, scale: 6 })
  rate!: string;

  @Property({ type: 'decimal', precision: 30, scale: 12 })
  inverseRate!: string;

  @Property({ type: 'integer' })
  feeBps!: number;

  @Property({ type: 'decimal', precision: 20, scale: 2 })
  minDepositNgn!: string;

  @Property({ type: 'text' })
  source!: string;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;
}
