import { Type } from 'typebox';

/** The error body of API.md, declared once for every route's error responses. */
export const ErrorResponse = Type.Object(
  {
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      details: Type.Optional(Type.String()),
    }),
  },
  { $id: 'ErrorResponse', description: 'Error body: {"error": {"code", "message", "details"?}}' },
);

const errorRef = Type.Unsafe<{ error: { code: string; message: string; details?: string } }>(
  Type.Ref('ErrorResponse'),
);

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
  { $id: 'Rate' },
);
