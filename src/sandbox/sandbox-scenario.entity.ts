import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { FxFailureScenario } from '../domain/sandbox-scenarios';
export type { FxFailureScenario };

/**
 * Fault scenarios a sandbox merchant sets through `setSandboxScenario`. Each applies to that
 * merchant only: one merchant's test must not break another's (the deployment-wide rate
 * source switch is the operator's, in `deployment_switches`).
 */
@Entity({ tableName: 'sandbox_scenarios' })
export class SandboxScenario {
  @PrimaryKey({ type: 'text', fieldName: 'merchant_id' })
  merchantId!: string;

  @Property({ type: 'boolean' })
  rateSourceDown = false;

  /**
   * When `rateSourceDown` was turned on: the merchant's quotes are the rates published before
   * then (valid until they expire), as if the source had stopped for it alone.
   */
  @Property({ type: 'timestamptz', nullable: true })
  rateSourceDownSince: Date | null = null;

  /** The sandbox FX venue fails this merchant's conversions: FLAGGED (temporary) or FAILED. */
  @Property({ type: 'text' })
  fxFailure: FxFailureScenario = 'NONE';

  /** The sandbox bank refuses this merchant's returns to the payer: RETURN_FAILED. */
  @Property({ type: 'boolean' })
  returnFailure = false;

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
