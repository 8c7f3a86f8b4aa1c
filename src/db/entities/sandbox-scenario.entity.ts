import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * Fault scenarios a sandbox merchant sets through `setSandboxScenario`. Rates are shared by
 * the whole deployment, so `rateSourceDown` set by any sandbox merchant stops the sandbox
 * rate source for everyone (a sandbox deployment is a test bench).
 */
@Entity({ tableName: 'sandbox_scenarios' })
export class SandboxScenario {
  @PrimaryKey({ type: 'text', fieldName: 'merchant_id' })
  merchantId!: string;

  @Property({ type: 'boolean' })
  rateSourceDown = false;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;
}
