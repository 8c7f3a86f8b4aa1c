import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

export type FxFailureScenario = 'NONE' | 'TEMPORARY' | 'PERMANENT';

/**
 * Fault scenarios a sandbox merchant sets through `setSandboxScenario`. Rates are shared by
 * the whole deployment, so `rateSourceDown` set by any sandbox merchant stops the sandbox
 * rate source for everyone (a sandbox deployment is a test bench). The others apply to the
 * merchant's own deposits only.
 */
@Entity({ tableName: 'sandbox_scenarios' })
export class SandboxScenario {
  @PrimaryKey({ type: 'text', fieldName: 'merchant_id' })
  merchantId!: string;

  @Property({ type: 'boolean' })
  rateSourceDown = false;

  /** The sandbox FX venue fails this merchant's conversions: FLAGGED (temporary) or FAILED. */
  @Property({ type: 'text' })
  fxFailure: FxFailureScenario = 'NONE';

  /** When set, every new onramp of the merchant receives a transfer of this many NGN. */
  @Property({ type: 'decimal', precision: 20, scale: 2, nullable: true })
  autoDepositNgn: string | null = null;

  @Property({ type: 'integer' })
  autoDepositDelaySeconds = 0;

  /** Chains treated as down for this merchant's payouts: nothing is signed or broadcast. */
  @Property({ type: 'text[]' })
  chainOutage: string[] = [];

  /** Risk review rejects every payout of this merchant (deposits FLAGGED, withdrawals FAILED). */
  @Property({ type: 'boolean' })
  riskReject = false;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;
}
