import 'reflect-metadata';
import { Field, GraphQLISODateTime, ID, ObjectType, registerEnumType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import type { MerchantRecord as Merchant } from '../../merchants';
import type { AuditEntry } from '../../audit';
import { PageInfoType } from '../graphql/types/connection';

export enum DepositResolutionEnum {
  SETTLE = 'SETTLE',
  RETURN = 'RETURN',
}
registerEnumType(DepositResolutionEnum, {
  name: 'DepositResolution',
  description:
    'SETTLE: FLAGGED to PENDING_FX at the current rate. RETURN: FLAGGED (or RETURN_FAILED, a new attempt) to RETURNING: the NGN goes back to the payer, RETURNED once the bank confirms (FAILED when the bank already reversed the transfer).',
});

export enum KeyEnvironmentEnum {
  sandbox = 'sandbox',
  production = 'production',
}
registerEnumType(KeyEnvironmentEnum, { name: 'KeyEnvironment' });

@ObjectType('AdminMerchant')
export class AdminMerchantType {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { description: 'ACTIVE or FROZEN.' }) status!: string;
  @Field(() => GraphQLISODateTime) updatedAt!: Date;

  static from(m: Merchant): AdminMerchantType {
    return Object.assign(new AdminMerchantType(), {
      id: m.id,
      name: m.name,
      status: m.status,
      updatedAt: m.updatedAt,
    });
  }
}

@ObjectType('IssuedApiKey', { description: 'A secret key, shown once.' })
export class IssuedApiKeyType {
  @Field(() => ID) keyId!: string;
  @Field(() => ID) merchantId!: string;
  @Field(() => KeyEnvironmentEnum) environment!: KeyEnvironmentEnum;
  @Field(() => String) apiKey!: string;
}

@ObjectType('CreatedMerchant')
export class CreatedMerchantType {
  @Field(() => AdminMerchantType) merchant!: AdminMerchantType;
  @Field(() => IssuedApiKeyType) key!: IssuedApiKeyType;
}

@ObjectType('RevokedApiKey')
export class RevokedApiKeyType {
  @Field(() => ID) keyId!: string;
  @Field(() => ID) merchantId!: string;
  @Field(() => GraphQLISODateTime) revokedAt!: Date;
}

@ObjectType('AuditEntry', {
  description: 'One operator action: who, what, when, before and after.',
})
export class AuditEntryType {
  @Field(() => ID) id!: string;
  @Field(() => String, { description: 'operator:<token name> or cli:<os user>.' }) actor!: string;
  @Field(() => String) action!: string;
  @Field(() => String) targetType!: string;
  @Field(() => ID) targetId!: string;
  @Field(() => GraphQLJSONObject, { nullable: true }) before!: Record<string, unknown> | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) after!: Record<string, unknown> | null;
  @Field(() => GraphQLISODateTime) createdAt!: Date;

  static from(e: AuditEntry): AuditEntryType {
    return Object.assign(new AuditEntryType(), e);
  }
}

@ObjectType('AuditEntryEdge')
export class AuditEntryEdgeType {
  @Field(() => String) cursor!: string;
  @Field(() => AuditEntryType) node!: AuditEntryType;
}

@ObjectType('AuditEntryConnection')
export class AuditEntryConnectionType {
  @Field(() => [AuditEntryEdgeType]) edges!: AuditEntryEdgeType[];
  @Field(() => PageInfoType) pageInfo!: PageInfoType;
}

@ObjectType('LedgerViolation')
export class LedgerViolationType {
  @Field(() => String) invariant!: string;
  @Field(() => String) detail!: string;
}

@ObjectType('LedgerCheckReport')
export class LedgerCheckReportType {
  @Field(() => Boolean) ok!: boolean;
  @Field(() => [String]) checked!: string[];
  @Field(() => [LedgerViolationType]) violations!: LedgerViolationType[];
}
