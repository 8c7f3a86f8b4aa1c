import {
  Field,
  GraphQLISODateTime,
  ID,
  InputType,
  Int,
  ObjectType,
  registerEnumType,
} from 'type-graphql';
import { type DepositView, assetAmount, ngnAmount } from '../../../deposits';
import { PageInfoType } from './connection';

/** The deposit statuses (domain/deposit-state-machine.ts), as a GraphQL enum. */
export enum DepositStatusEnum {
  PENDING_FX = 'PENDING_FX',
  PENDING_WITHDRAWAL = 'PENDING_WITHDRAWAL',
  SETTLED = 'SETTLED',
  FAILED = 'FAILED',
  FLAGGED = 'FLAGGED',
  REVERSED = 'REVERSED',
  RETURNING = 'RETURNING',
  RETURNED = 'RETURNED',
  RETURN_FAILED = 'RETURN_FAILED',
}
registerEnumType(DepositStatusEnum, { name: 'DepositStatus' });

@ObjectType('DepositPayer', {
  description: "The payer's bank account as the bank reported it; null fields when unknown.",
})
export class DepositPayerType {
  @Field(() => String, { nullable: true }) accountName!: string | null;
  @Field(() => String, { nullable: true, description: 'Never the full number.' })
  accountNumberLast4!: string | null;
  @Field(() => String, { nullable: true }) bankCode!: string | null;
}

@ObjectType('Deposit', {
  description: 'One NGN bank transfer into an onramp virtual account (not the on-chain transfer).',
})
export class DepositNode {
  @Field(() => ID, { description: 'Same as depositId.' }) id!: string;
  @Field(() => ID) depositId!: string;
  @Field(() => ID) onrampId!: string;
  @Field(() => ID) merchantId!: string;
  @Field(() => String) paymentReference!: string;
  @Field(() => String) userEmail!: string;
  @Field(() => String, { description: 'NGN received, decimal string with 2 places.' })
  amountNgn!: string;
  @Field(() => String) bankReference!: string;
  @Field(() => ID, { nullable: true, description: 'Null for PERMANENT onramps.' })
  rateId!: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'Asset units after conversion, 6 places rounded down; null until known.',
  })
  amountAsset!: string | null;
  @Field(() => String, { nullable: true }) asset!: string | null;
  @Field(() => String, { nullable: true }) chain!: string | null;
  @Field(() => String, { nullable: true, description: 'Set after on-chain settlement.' })
  txHash!: string | null;
  @Field(() => DepositStatusEnum) status!: DepositStatusEnum;
  @Field(() => String, { nullable: true }) failureReason!: string | null;
  @Field(() => String, { nullable: true }) flagReason!: string | null;
  @Field(() => DepositPayerType) payer!: DepositPayerType;
  @Field(() => GraphQLISODateTime) createdAt!: Date;
  @Field(() => GraphQLISODateTime, { nullable: true }) settledAt!: Date | null;
  @Field(() => GraphQLISODateTime) updatedAt!: Date;

  /** From an entity or an event snapshot (see `depositViewFromSnapshot`). */
  static from(d: DepositView): DepositNode {
    return Object.assign(new DepositNode(), {
      id: d.id,
      depositId: d.id,
      onrampId: d.onrampId,
      merchantId: d.merchantId,
      paymentReference: d.paymentReference,
      userEmail: d.userEmail,
      amountNgn: ngnAmount(d.amountNgn),
      bankReference: d.bankReference,
      rateId: d.rateId,
      amountAsset: assetAmount(d.amountAsset),
      asset: d.asset,
      chain: d.chain,
      txHash: d.txHash,
      status: d.status as DepositStatusEnum,
      failureReason: d.failureReason,
      flagReason: d.flagReason,
      payer: Object.assign(new DepositPayerType(), {
        accountName: d.senderName,
        accountNumberLast4: d.senderAccountLast4,
        bankCode: d.senderBank,
      }),
      createdAt: d.createdAt,
      settledAt: d.settledAt,
      updatedAt: d.updatedAt,
    });
  }
}

@ObjectType('DepositEdge')
export class DepositEdgeType {
  @Field(() => String) cursor!: string;
  @Field(() => DepositNode) node!: DepositNode;
}

@ObjectType('DepositConnection')
export class DepositConnectionType {
  @Field(() => [DepositEdgeType]) edges!: DepositEdgeType[];
  @Field(() => PageInfoType) pageInfo!: PageInfoType;
  @Field(() => Int) totalCount!: number;
}

@InputType('DepositFilter', { description: 'All optional; bounds are inclusive.' })
export class DepositFilterInput {
  @Field(() => ID, { nullable: true }) onrampId?: string | null;
  @Field(() => DepositStatusEnum, { nullable: true }) status?: DepositStatusEnum | null;
  @Field(() => String, {
    nullable: true,
    description: 'createdAt lower bound: a date (whole UTC day) or an ISO 8601 timestamp.',
  })
  from?: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'createdAt upper bound: a date (whole UTC day) or an ISO 8601 timestamp.',
  })
  to?: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'updatedAt lower bound (ISO 8601), for recovering missed status changes.',
  })
  updatedSince?: string | null;
}
