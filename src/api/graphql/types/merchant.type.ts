import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { Merchant, MerchantStatus } from '../../../db/entities/merchant.entity';

registerEnumType(MerchantStatus, { name: 'MerchantStatus' });

@ObjectType('Merchant')
export class MerchantType {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => MerchantStatus)
  status!: MerchantStatus;

  static from(merchant: Merchant): MerchantType {
    return Object.assign(new MerchantType(), {
      id: merchant.id,
      name: merchant.name,
      status: merchant.status,
    });
  }
}
