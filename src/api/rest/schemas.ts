import { Type, type Static, type TSchema } from 'typebox';
import { ErrorCode } from '../../domain/errors';

/**
 * A reference to a shared (named) schema, typed as the schema itself. Shared schemas are added
 * to the gateway once (`addSharedSchemas`); the OpenAPI document names them after their `$id`
 * (components/schemas), and the response serializer resolves the reference.
 */
export const refTo = <T extends TSchema & { $id?: string }>(schema: T) =>
  Type.Unsafe<Static<T>>(Type.Ref(schema.$id!));

/** The error body of docs/api.md ("Errors"); `code` is one of the service's fixed codes. */
export const ErrorResponse = Type.Object(
  {
    error: Type.Object({
      code: Type.String({
        enum: Object.values(ErrorCode),
        description: 'Fixed list; GraphQL answers the same name in UPPER_SNAKE case',
      }),
      message: Type.String({ description: 'For people; may change without notice' }),
      details: Type.Optional(Type.String()),
    }),
  },
  { $id: 'Error', description: 'Error body: {"error": {"code", "message", "details"?}}' },
);

const errorRef = refTo(ErrorResponse);

/** Error responses every authenticated route can give. */
export function errorResponses(...statuses: number[]): Record<number, typeof errorRef> {
  const common = [400, 401, 429, 500, 503];
  return Object.fromEntries([...new Set([...common, ...statuses])].map((s) => [s, errorRef]));
}

export const RateResponse = Type.Object(
  {
    rate_id: Type.String(),
    from: Type.String({ enum: ['NGN'] }),
    to: Type.String({ enum: ['USDC', 'USDT', 'USD'] }),
    rate: Type.Number({ description: 'NGN per 1 unit of `to`, fee included' }),
    inverse_rate: Type.Number({ description: 'Units of `to` per 1 NGN, fee included' }),
    fee_bps: Type.Integer(),
    market_rate: Type.Number({ description: 'Mid-market NGN per unit before the fee' }),
    min_deposit_ngn: Type.Number(),
    created_at: Type.String({ format: 'date-time' }),
    expires_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Rate', description: 'A firm quote; published rates never change' },
);

export const HealthResponse = Type.Object(
  {
    status: Type.String({ enum: ['ok', 'unavailable'] }),
    database: Type.String({ enum: ['ok', 'down'] }),
    environment: Type.String({ enum: ['sandbox', 'production'] }),
    version: Type.String(),
    providers: Type.Optional(
      Type.Object(
        {
          bank: Type.Array(
            Type.Object({
              name: Type.String({ description: 'A name in BANK_PROVIDERS, in its order' }),
              ok: Type.Boolean({ description: 'False while it cools down after a failure' }),
              checked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
              detail: Type.Optional(Type.String()),
            }),
          ),
          rate_sources: Type.Array(Type.String(), { description: 'RATE_SOURCES' }),
          fx_venue: Type.String({ description: 'FX_VENUE' }),
        },
        { description: "Each provider's state; a provider down does not make this 503" },
      ),
    ),
    error: Type.Optional(
      Type.Object({
        code: Type.String({ enum: Object.values(ErrorCode) }),
        message: Type.String(),
      }),
    ),
  },
  { $id: 'Health', description: 'The same shape with 200 (ok) and 503 (unavailable)' },
);
