import { Type } from 'typebox';
import { PageQuery, Pagination } from './onramp.schemas';
import { refTo } from './schemas';

export const WITHDRAWAL_STATUSES = ['PENDING', 'BROADCAST', 'COMPLETED', 'FAILED'] as const;

/**
 * Only shape and length are checked here; the values (decimal places, minimum, asset, chain,
 * address) are the service's job, so REST and GraphQL answer the same error codes. A missing
 * field fails `required` (400 missing_parameter), an unknown one `additionalProperties` (400
 * invalid_parameter).
 */
export const WithdrawBody = Type.Object(
  {
    amount: Type.String({
      maxLength: 40,
      description: 'USD as a decimal string, at most 6 places, at least WITHDRAWAL_MIN_USD',
    }),
    asset: Type.String({ maxLength: 16, description: 'USDC or USDT (sent 1:1 for USD)' }),
    chain: Type.String({ maxLength: 16, description: 'BASE, ETHEREUM (or ETH), POLYGON' }),
    destination_address: Type.String({ maxLength: 200, description: 'EVM address' }),
  },
  { additionalProperties: false },
);

/** The Withdrawal object of docs/api.md; the serializer drops anything not declared here. */
export const WithdrawalResponse = Type.Object(
  {
    withdrawal_id: Type.String(),
    amount: Type.String({ description: 'USD, 6 decimals' }),
    asset: Type.String({ enum: ['USDC', 'USDT'] }),
    chain: Type.String({ enum: ['BASE', 'ETHEREUM', 'POLYGON'] }),
    destination_address: Type.String(),
    status: Type.String({ enum: [...WITHDRAWAL_STATUSES] }),
    tx_hash: Type.Union([Type.String(), Type.Null()], { description: 'Set once broadcast' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Withdrawal', description: 'A withdrawal of the USD balance as a stablecoin' },
);

export const WithdrawalListQuery = Type.Object(PageQuery);

export const WithdrawalListResponse = Type.Object({
  withdrawals: Type.Array(refTo(WithdrawalResponse)),
  pagination: refTo(Pagination),
});
