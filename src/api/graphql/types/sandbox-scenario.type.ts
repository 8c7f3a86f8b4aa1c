import {
  Field,
  GraphQLISODateTime,
  InputType,
  Int,
  ObjectType,
  registerEnumType,
} from 'type-graphql';
import type { SandboxScenarioRecord as SandboxScenario } from '../../../sandbox';

export enum FxFailure {
  NONE = 'NONE',
  TEMPORARY = 'TEMPORARY',
  PERMANENT = 'PERMANENT',
}
registerEnumType(FxFailure, {
  name: 'FxFailure',
  description: 'Sandbox FX venue failure: TEMPORARY flags the deposit, PERMANENT fails it.',
});

@InputType('SandboxScenarioInput', {
  description: 'Fields left out keep their current value.',
})
export class SandboxScenarioInput {
  @Field(() => Boolean, {
    nullable: true,
    description:
      'Stop the rate source for your own quotes: rates published after this are hidden from you, so your quotes answer RATE_UNAVAILABLE once the last ones expire. Other merchants keep getting rates.',
  })
  rateSourceDown?: boolean | null;

  @Field(() => FxFailure, {
    nullable: true,
    description: "FX failure for this merchant's deposits.",
  })
  fxFailure?: FxFailure | null;

  @Field(() => String, {
    nullable: true,
    description: 'NGN every new onramp receives automatically; "" or "0" turns it off.',
  })
  autoDepositNgn?: string | null;

  @Field(() => Int, { nullable: true, description: 'Delay of the automatic transfer (0-86400).' })
  autoDepositDelaySeconds?: number | null;

  @Field(() => [String], {
    nullable: true,
    description:
      "Chains treated as down for this merchant's payouts (BASE, ETHEREUM, POLYGON); [] clears.",
  })
  chainOutage?: string[] | null;

  @Field(() => Boolean, {
    nullable: true,
    description: "Risk review rejects this merchant's payouts.",
  })
  riskReject?: boolean | null;

  @Field(() => Boolean, {
    nullable: true,
    description: "The sandbox bank refuses this merchant's returns to the payer (RETURN_FAILED).",
  })
  returnFailure?: boolean | null;
}

@ObjectType('SandboxScenario')
export class SandboxScenarioType {
  @Field(() => Boolean)
  rateSourceDown!: boolean;

  @Field(() => FxFailure)
  fxFailure!: FxFailure;

  @Field(() => String, { nullable: true, description: 'Null when auto-simulation is off.' })
  autoDepositNgn!: string | null;

  @Field(() => Int)
  autoDepositDelaySeconds!: number;

  @Field(() => [String])
  chainOutage!: string[];

  @Field(() => Boolean)
  riskReject!: boolean;

  @Field(() => Boolean)
  returnFailure!: boolean;

  @Field(() => GraphQLISODateTime)
  updatedAt!: Date;

  static from(row: SandboxScenario): SandboxScenarioType {
    return Object.assign(new SandboxScenarioType(), {
      rateSourceDown: row.rateSourceDown,
      fxFailure: row.fxFailure as FxFailure,
      autoDepositNgn: row.autoDepositNgn,
      autoDepositDelaySeconds: row.autoDepositDelaySeconds,
      chainOutage: row.chainOutage,
      riskReject: row.riskReject,
      returnFailure: row.returnFailure,
      updatedAt: row.updatedAt,
    });
  }
}

@InputType('SimulatedPayerInput')
export class SimulatedPayerInput {
  @Field(() => String, { nullable: true }) accountName?: string | null;
  @Field(() => String, { nullable: true, description: '10 digits.' }) accountNumber?: string | null;
  @Field(() => String, { nullable: true }) bankCode?: string | null;
}

@InputType('SimulateDepositInput')
export class SimulateDepositInput {
  @Field(() => String, { description: 'The onramp virtual account number.' })
  accountNumber!: string;

  @Field(() => String, { description: 'NGN, decimal string with at most 2 places.' })
  amountNgn!: string;

  @Field(() => String, {
    nullable: true,
    description: 'Generated (SBX-...) when absent; a repeat returns the existing deposit.',
  })
  bankReference?: string | null;

  @Field(() => SimulatedPayerInput, {
    nullable: true,
    description: 'The payer; made up from the bank reference when absent (or per field).',
  })
  payer?: SimulatedPayerInput | null;
}
