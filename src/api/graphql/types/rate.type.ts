import { Field, Float, ID, Int, ObjectType, GraphQLISODateTime } from 'type-graphql';
import type { RateRecord as Rate } from '../../../rates';

@ObjectType('Rate', { description: 'A firm NGN quote; immutable once published.' })
export class RateType {
  @Field(() => ID)
  rateId!: string;

  @Field(() => String)
  from!: string;

  @Field(() => String)
  to!: string;

  @Field(() => Float, { description: 'NGN per 1 unit of `to`, fee included.' })
  rate!: number;

  @Field(() => Float, { description: 'Units of `to` per 1 NGN, fee included.' })
  inverseRate!: number;

  @Field(() => Int)
  feeBps!: number;

  @Field(() => Float, { description: 'Mid-market NGN per unit before the fee.' })
  marketRate!: number;

  @Field(() => Float)
  minDepositNgn!: number;

  @Field(() => GraphQLISODateTime)
  createdAt!: Date;

  @Field(() => GraphQLISODateTime)
  expiresAt!: Date;

  static from(rate: Rate): RateType {
    return Object.assign(new RateType(), {
      rateId: rate.id,
      from: rate.from,
      to: rate.to,
      rate: Number(rate.rate),
      inverseRate: Number(rate.inverseRate),
      feeBps: rate.feeBps,
      marketRate: Number(rate.marketRate),
      minDepositNgn: Number(rate.minDepositNgn),
      createdAt: rate.createdAt,
      expiresAt: rate.expiresAt,
    });
  }
}
