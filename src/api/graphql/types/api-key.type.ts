import { Field, GraphQLISODateTime, ID, InputType, Int, ObjectType } from 'type-graphql';
import type { ApiKeyView } from '../../../merchants';
import { PageInfoType } from './connection';

@ObjectType('ApiKey', { description: 'An API key; its secret is shown only when created.' })
export class ApiKeyType {
  @Field(() => ID) id!: string;
  @Field(() => String, { nullable: true, description: 'Null for keys the operator issued.' })
  name!: string | null;
  @Field(() => [String], {
    description: 'As in REST: "all", or restricted scopes such as "deposits:read".',
  })
  scopes!: string[];
  @Field(() => [String], { nullable: true, description: 'Null: any address.' })
  allowedIps!: string[] | null;
  @Field(() => String, { description: 'The first characters of the key, e.g. rk_test_ab12.' })
  keyPrefix!: string;
  @Field(() => GraphQLISODateTime) createdAt!: Date;
  @Field(() => GraphQLISODateTime, { nullable: true }) revokedAt!: Date | null;

  static fill<T extends ApiKeyType>(target: T, key: ApiKeyView): T {
    return Object.assign(target, {
      id: key.id,
      name: key.name,
      scopes: key.scopes,
      allowedIps: key.allowedIps,
      keyPrefix: key.keyPrefix,
      createdAt: key.createdAt,
      revokedAt: key.revokedAt,
    });
  }

  static from(key: ApiKeyView): ApiKeyType {
    return ApiKeyType.fill(new ApiKeyType(), key);
  }
}

@ObjectType('CreatedApiKey', { description: 'A new API key with its secret (shown only here).' })
export class CreatedApiKeyType extends ApiKeyType {
  @Field(() => String, { description: 'The key itself (sk_... or rk_...): shown this once.' })
  secret!: string;
}

@ObjectType('ApiKeyEdge')
export class ApiKeyEdgeType {
  @Field(() => String) cursor!: string;
  @Field(() => ApiKeyType) node!: ApiKeyType;
}

@ObjectType('ApiKeyConnection')
export class ApiKeyConnectionType {
  @Field(() => [ApiKeyEdgeType]) edges!: ApiKeyEdgeType[];
  @Field(() => PageInfoType) pageInfo!: PageInfoType;
  @Field(() => Int) totalCount!: number;
}

@InputType('CreateApiKeyInput')
export class CreateApiKeyInput {
  @Field(() => String, { description: '1-100 characters.' }) name!: string;
  @Field(() => [String], {
    description: 'Exactly ["all"] for a secret key; any other list makes a restricted key.',
  })
  scopes!: string[];
  @Field(() => [String], {
    nullable: true,
    description: 'IPv4/IPv6 addresses and CIDRs (at most 50); null: any address.',
  })
  allowedIps?: string[] | null;
}
