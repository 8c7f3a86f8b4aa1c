import {
  Field,
  ID,
  InputType,
  Int,
  ObjectType,
  registerEnumType,
  GraphQLISODateTime,
} from 'type-graphql';
import type { OnrampRecord as Onramp } from '../../../onramps';
import { OnrampStatus, OnrampType, SettlementMode } from '../../../domain/onramp-kinds';
import { onrampStatusAt } from '../../../domain/onramp-status';
import { PageInfoType } from './connection';
import { dec } from '../../../domain/money';
import { customerSummary, type CustomerSummary } from '../../../onramps';

registerEnumType(OnrampType, { name: 'OnrampType' });
registerEnumType(OnrampStatus, { name: 'OnrampStatus' });
registerEnumType(SettlementMode, { name: 'SettlementMode' });

export enum StablecoinAsset {
  USDC = 'USDC',
  USDT = 'USDT',
}
registerEnumType(StablecoinAsset, { name: 'Asset' });

/** The customer record's fields; values are the REST names. */
export enum CustomerField {
  FIRST_NAME = 'first_name',
  LAST_NAME = 'last_name',
  PHONE = 'phone',
  BVN = 'bvn',
  NIN = 'nin',
}
registerEnumType(CustomerField, { name: 'CustomerField' });

@ObjectType('VirtualAccount')
export class VirtualAccountType {
  @Field(() => String) accountNumber!: string;
  @Field(() => String) accountName!: string;
  @Field(() => String) bankName!: string;
  @Field(() => String) bankCode!: string;
}

@ObjectType('Settlement', { description: 'Fixed at creation; never changes.' })
export class SettlementType {
  @Field(() => SettlementMode) mode!: SettlementMode;
  @Field(() => StablecoinAsset, { nullable: true }) asset!: StablecoinAsset | null;
  @Field(() => String, { nullable: true, description: 'BASE, ETHEREUM or POLYGON.' }) chain!:
    string | null;
  @Field(() => String, { nullable: true }) destinationAddress!: string | null;
}

@ObjectType('OnrampCustomer', {
  description:
    'The customer record given at creation, as far as it is shown: which fields, and the last 4 digits of an identity number. Names and phone are never shown back.',
})
export class OnrampCustomerType {
  @Field(() => [CustomerField]) fields!: CustomerField[];
  @Field(() => String, { nullable: true, description: "The BVN's last 4 digits." })
  bvnLast4!: string | null;
  @Field(() => String, { nullable: true, description: "The NIN's last 4 digits." })
  ninLast4!: string | null;

  static from(summary: CustomerSummary | null): OnrampCustomerType | null {
    if (summary === null) return null;
    return Object.assign(new OnrampCustomerType(), {
      fields: summary.fields as string[] as CustomerField[],
      bvnLast4: summary.bvnLast4,
      ninLast4: summary.ninLast4,
    });
  }
}

@ObjectType('Onramp')
export class OnrampNode {
  @Field(() => ID, { description: 'Same as onrampId.' }) id!: string;
  @Field(() => ID) onrampId!: string;
  @Field(() => OnrampType) type!: OnrampType;
  @Field(() => OnrampStatus) status!: OnrampStatus;
  @Field(() => ID, { nullable: true, description: 'Null for PERMANENT onramps.' }) rateId!:
    string | null;
  @Field(() => String) paymentReference!: string;
  @Field(() => VirtualAccountType) virtualAccount!: VirtualAccountType;
  @Field(() => SettlementType) settlement!: SettlementType;
  @Field(() => String) userEmail!: string;
  @Field(() => String, { nullable: true, description: 'The amount expected (NGN, 2 decimals).' })
  amountNgn!: string | null;
  @Field(() => String, { nullable: true, description: 'The payer expected.' })
  payerName!: string | null;
  @Field(() => OnrampCustomerType, { nullable: true, description: 'Null when none was given.' })
  customer!: OnrampCustomerType | null;
  @Field(() => GraphQLISODateTime, { nullable: true }) expiresAt!: Date | null;
  @Field(() => GraphQLISODateTime) createdAt!: Date;
  @Field(() => GraphQLISODateTime) updatedAt!: Date;

  static fill<T extends OnrampNode>(target: T, onramp: Onramp, now: Date): T {
    return Object.assign(target, {
      id: onramp.id,
      onrampId: onramp.id,
      type: onramp.type,
      status: onrampStatusAt(onramp, now) as OnrampStatus,
      rateId: onramp.rateId,
      paymentReference: onramp.paymentReference,
      virtualAccount: Object.assign(new VirtualAccountType(), {
        accountNumber: onramp.accountNumber,
        accountName: onramp.accountName,
        bankName: onramp.bankName,
        bankCode: onramp.bankCode,
      }),
      settlement: Object.assign(new SettlementType(), {
        mode: onramp.settlementMode,
        asset: onramp.settlementAsset,
        chain: onramp.settlementChain,
        destinationAddress: onramp.destinationAddress,
      }),
      userEmail: onramp.userEmail,
      amountNgn: onramp.amountNgn === null ? null : dec(onramp.amountNgn).toFixed(2),
      payerName: onramp.payerName,
      customer: OnrampCustomerType.from(customerSummary(onramp)),
      expiresAt: onramp.expiresAt,
      createdAt: onramp.createdAt,
      updatedAt: onramp.updatedAt,
    });
  }

  static from(onramp: Onramp, now: Date): OnrampNode {
    return OnrampNode.fill(new OnrampNode(), onramp, now);
  }
}

@ObjectType('CreatedOnramp', {
  description:
    'The new onramp (its fields, and as `onramp`) plus its client secret, shown only here.',
})
export class CreatedOnrampType extends OnrampNode {
  @Field(() => OnrampNode) onramp!: OnrampNode;
  @Field(() => String, {
    description: 'oc_...: read-only bearer token for this onramp, for frontends.',
  })
  clientSecret!: string;
}

@ObjectType('OnrampEdge')
export class OnrampEdgeType {
  @Field(() => String) cursor!: string;
  @Field(() => OnrampNode) node!: OnrampNode;
}

@ObjectType('OnrampConnection')
export class OnrampConnectionType {
  @Field(() => [OnrampEdgeType]) edges!: OnrampEdgeType[];
  @Field(() => PageInfoType) pageInfo!: PageInfoType;
  @Field(() => Int) totalCount!: number;
}

@InputType('OnrampUserInput')
export class OnrampUserInput {
  @Field(() => String) email!: string;
}

@InputType('SettlementInput')
export class SettlementInput {
  @Field(() => SettlementMode) mode!: SettlementMode;
  @Field(() => StablecoinAsset, { nullable: true }) asset?: StablecoinAsset | null;
  @Field(() => String, { nullable: true, description: 'BASE, ETHEREUM (or ETH) or POLYGON.' })
  chain?: string | null;
  @Field(() => String, { nullable: true }) destinationAddress?: string | null;
}

@InputType('OnrampCustomerInput', {
  description:
    'What a bank provider may need about the payer before it opens an account; stored sealed.',
})
export class OnrampCustomerInput {
  @Field(() => String, { nullable: true, description: 'At most 100 characters.' })
  firstName?: string | null;
  @Field(() => String, { nullable: true, description: 'At most 100 characters.' })
  lastName?: string | null;
  @Field(() => String, {
    nullable: true,
    description: '10-15 digits with an optional leading + (spaces and dashes are dropped).',
  })
  phone?: string | null;
  @Field(() => String, { nullable: true, description: 'Bank Verification Number, 11 digits.' })
  bvn?: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'National Identification Number, 11 digits.',
  })
  nin?: string | null;
}

@InputType('CreateOnrampInput')
export class CreateOnrampInput {
  @Field(() => OnrampType) type!: OnrampType;
  @Field(() => OnrampUserInput) user!: OnrampUserInput;
  @Field(() => ID, {
    nullable: true,
    description: 'Required for THROWAWAY and EPHEMERAL; omit for PERMANENT.',
  })
  rateId?: string | null;
  @Field(() => SettlementInput) settlement!: SettlementInput;
  @Field(() => String, {
    nullable: true,
    description: 'The amount expected (NGN decimal string); THROWAWAY and EPHEMERAL only.',
  })
  amountNgn?: string | null;
  @Field(() => String, { nullable: true, description: 'The payer expected.' })
  payerName?: string | null;
  @Field(() => OnrampCustomerInput, { nullable: true })
  customer?: OnrampCustomerInput | null;
}
