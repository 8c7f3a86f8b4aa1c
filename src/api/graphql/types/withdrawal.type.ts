import {
  Field,
  GraphQLISODateTime,
  ID,
  InputType,
  Int,
  ObjectType,
  registerEnumType,
} from 'type-graphql';
import type { WithdrawalRecord as Withdrawal } from '../../../payouts';
import { presentWithdrawal } from '../../../payouts';
import { PageInfoType } from './connection';

export enum WithdrawalStatusEnum {
  PENDING = 'PENDING',
  BROADCAST = 'BROADCAST',
  COMPLETED = 'COMPLETED',
  FAILED = 'FAILED',
}
registerEnumType(WithdrawalStatusEnum, { name: 'WithdrawalStatus' });

@ObjectType('Withdrawal', {
  description: 'A withdrawal of USD balance, sent 1:1 as USDC or USDT to an address.',
})
export class WithdrawalNode {
  @Field(() => ID, { description: 'Same as withdrawalId.' }) id!: string;
  @Field(() => ID) withdrawalId!: string;
  @Field(() => String, { description: 'USD, decimal string with 6 places.' }) amount!: string;
  @Field(() => String, { description: 'USDC or USDT.' }) asset!: string;
  @Field(() => String, { description: 'BASE, ETHEREUM or POLYGON.' }) chain!: string;
  @Field(() => String) destinationAddress!: string;
  @Field(() => WithdrawalStatusEnum) status!: WithdrawalStatusEnum;
  @Field(() => String, { nullable: true, description: 'Set once broadcast.' })
  txHash!: string | null;
  @Field(() => GraphQLISODateTime) createdAt!: Date;
  @Field(() => GraphQLISODateTime) updatedAt!: Date;

  /** Through the REST presenter, so both transports format (and omit) the same way. */
  static from(w: Withdrawal): WithdrawalNode {
    const rest = presentWithdrawal(w);
    return Object.assign(new WithdrawalNode(), {
      id: rest.withdrawal_id,
      withdrawalId: rest.withdrawal_id,
      amount: rest.amount,
      asset: rest.asset,
      chain: rest.chain,
      destinationAddress: rest.destination_address,
      status: rest.status as WithdrawalStatusEnum,
      txHash: rest.tx_hash,
      createdAt: w.createdAt,
      updatedAt: w.updatedAt,
    });
  }
}

@ObjectType('WithdrawalEdge')
export class WithdrawalEdgeType {
  @Field(() => String) cursor!: string;
  @Field(() => WithdrawalNode) node!: WithdrawalNode;
}

@ObjectType('WithdrawalConnection')
export class WithdrawalConnectionType {
  @Field(() => [WithdrawalEdgeType]) edges!: WithdrawalEdgeType[];
  @Field(() => PageInfoType) pageInfo!: PageInfoType;
  @Field(() => Int) totalCount!: number;
}

/** Plain strings: the service checks the values, so errors match REST's codes. */
@InputType('WithdrawInput')
export class WithdrawInput {
  @Field(() => String, { description: 'USD, decimal string with at most 6 places.' })
  amount!: string;
  @Field(() => String, { description: 'USDC or USDT.' }) asset!: string;
  @Field(() => String, { description: 'BASE, ETHEREUM (or ETH) or POLYGON.' }) chain!: string;
  @Field(() => String) destinationAddress!: string;
}
