import { Field, GraphQLISODateTime, Int, ObjectType } from 'type-graphql';
import { DepositStatusEnum } from './deposit.type';

@ObjectType('DepositStatusChange', { description: 'A status the deposit entered, and when.' })
export class DepositStatusChangeType {
  @Field(() => DepositStatusEnum) status!: DepositStatusEnum;
  @Field(() => String, { description: 'The event written, e.g. deposit.settled.' }) event!: string;
  @Field(() => GraphQLISODateTime) at!: Date;
}

@ObjectType('SettledVolumeDay', { description: 'Deposits settled on one Africa/Lagos day.' })
export class SettledVolumeDayType {
  @Field(() => String, { description: 'YYYY-MM-DD (Africa/Lagos).' }) day!: string;
  @Field(() => String, { description: 'USD (amount_asset), 6 places.' }) usd!: string;
  @Field(() => Int) count!: number;
}
