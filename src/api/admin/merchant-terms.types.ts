import 'reflect-metadata';
import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { MerchantTermsView } from '../../flows/merchant-terms';

export enum ReversalLiabilityEnum {
  operator = 'operator',
  merchant = 'merchant',
}
registerEnumType(ReversalLiabilityEnum, {
  name: 'ReversalLiability',
  description:
    'Who bears a bank reversal of a SETTLED deposit: the operator (the loss is booked as its own), or the merchant (its balance is debited amount_asset and may go below zero).',
});

@ObjectType('MerchantReserve')
export class MerchantReserveType {
  @Field(() => Int, { description: 'Share of each balance settlement held, in basis points.' })
  percentBps!: number;

  @Field(() => Int, { description: 'Days (of RESERVE_DAY_SECONDS) each hold waits.' })
  holdDays!: number;
}

@ObjectType('MerchantLedgerTerms')
export class MerchantTermsType {
  @Field(() => ID) merchantId!: string;

  @Field(() => ReversalLiabilityEnum, {
    description: 'In force now (the override or the default).',
  })
  reversalLiability!: ReversalLiabilityEnum;

  @Field(() => ReversalLiabilityEnum, {
    nullable: true,
    description: "The operator's setting for this merchant; null: REVERSAL_LIABILITY.",
  })
  reversalLiabilityOverride!: ReversalLiabilityEnum | null;

  @Field(() => MerchantReserveType, { nullable: true, description: 'Null: no reserve.' })
  reserve!: MerchantReserveType | null;

  static from(view: MerchantTermsView): MerchantTermsType {
    return Object.assign(new MerchantTermsType(), {
      merchantId: view.merchant_id,
      reversalLiability: view.reversal_liability as ReversalLiabilityEnum,
      reversalLiabilityOverride: view.reversal_liability_override as ReversalLiabilityEnum | null,
      reserve: view.reserve
        ? Object.assign(new MerchantReserveType(), {
            percentBps: view.reserve.percent_bps,
            holdDays: view.reserve.hold_days,
          })
        : null,
    });
  }
}
