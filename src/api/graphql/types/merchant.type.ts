import { Field, GraphQLISODateTime, ID, ObjectType, registerEnumType } from 'type-graphql';
import type { MerchantRecord as Merchant } from '../../../merchants';
import { MerchantStatus } from '../../../domain/merchant-status';
import type { MerchantBalance } from '../../../ledger';

registerEnumType(MerchantStatus, { name: 'MerchantStatus' });

@ObjectType('Balance', { description: 'USD balances from the ledger; amounts have 6 places.' })
export class BalanceType {
  @Field(() => String)
  usdAvailable!: string;

  @Field(() => String)
  usdPendingWithdrawal!: string;

  @Field(() => String, {
    description: "Held by the merchant's reserve until released (v0.3); 6 places.",
  })
  usdReserved!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: Date;

  static from(balance: MerchantBalance): BalanceType {
    return Object.assign(new BalanceType(), {
      usdAvailable: balance.usdAvailable,
      usdPendingWithdrawal: balance.usdPendingWithdrawal,
      usdReserved: balance.usdReserved,
      updatedAt: balance.updatedAt,
    });
  }
}

@ObjectType('Merchant')
export class MerchantType {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => MerchantStatus)
  status!: MerchantStatus;

  /** Not a field: the balance's `updatedAt` when the ledger has no entry yet. */
  createdAt!: Date;

  static from(merchant: Merchant): MerchantType {
    return Object.assign(new MerchantType(), {
      id: merchant.id,
      name: merchant.name,
      status: merchant.status,
      createdAt: merchant.createdAt,
    });
  }
}
