import { Type } from 'typebox';
import { API_SCOPES } from '../../domain/api-scopes';
import { MAX_ALLOWED_IPS } from '../../domain/allowed-ips';
import { PageQuery, Pagination } from './onramp.schemas';
import { refTo } from './schemas';

const ScopeList = Type.Array(Type.String({ enum: [...API_SCOPES] }), {
  minItems: 1,
  maxItems: API_SCOPES.length,
  description:
    'Exactly ["all"] makes a secret key (sk_); any other list a restricted key (rk_). ' +
    '"all" cannot be combined with other scopes.',
});

const AllowedIps = Type.Union(
  [
    Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: MAX_ALLOWED_IPS }),
    Type.Null(),
  ],
  {
    description:
      'IPv4/IPv6 addresses and CIDRs the key may be used from (the client address as the ' +
      "deployment's TRUST_PROXY decides it); null or absent: any address",
  },
);

/** Shapes only; the service decides on names, scope combinations and addresses. */
export const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({ maxLength: 200, description: '1-100 characters' }),
    scopes: ScopeList,
    allowed_ips: Type.Optional(AllowedIps),
  },
  { additionalProperties: false },
);

const keyFields = {
  id: Type.String(),
  name: Type.Union([Type.String(), Type.Null()], {
    description: 'Null for keys the operator issued',
  }),
  scopes: Type.Array(Type.String({ enum: [...API_SCOPES] })),
  allowed_ips: Type.Union([Type.Array(Type.String()), Type.Null()]),
  key_prefix: Type.String({ description: 'The first characters of the key, e.g. rk_test_ab12' }),
  created_at: Type.String({ format: 'date-time' }),
  revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
};

/** An API key as listed: never its secret. */
export const ApiKeyResponse = Type.Object(keyFields, {
  $id: 'ApiKey',
  description: 'An API key (its secret is shown only when it is created)',
});

export const CreatedApiKeyResponse = Type.Object(
  { ...keyFields, secret: Type.String({ description: 'The key itself: shown this once' }) },
  { $id: 'CreatedApiKey', description: 'A new API key, with its secret (shown only here)' },
);

export const ApiKeyListQuery = Type.Object(PageQuery);

export const ApiKeyListResponse = Type.Object({
  api_keys: Type.Array(refTo(ApiKeyResponse)),
  pagination: refTo(Pagination),
});
