import { Type } from 'typebox';
import { DEPOSIT_STATUSES } from '../../domain/deposit-state-machine';
import { PageQuery } from './onramp.schemas';

const NullableString = (options: Parameters<typeof Type.String>[0] = {}) =>
  Type.Union([Type.String(options), Type.Null()]);

/** The Deposit object: the spec's table; the serializer drops anything not declared here. */
export const DepositResponse = Type.Object(
  {
    deposit_id: Type.String(),
    onramp_id: Type.String(),
    merchant_id: Type.String(),
    payment_reference: Type.String(),
    user_email: Type.String(),
    amount_ngn: Type.String({ description: 'NGN received, 2 decimals' }),
    bank_reference: Type.String(),
    rate_id: NullableString({ description: 'Null for PERMANENT onramps' }),
    amount_asset: NullableString({ description: 'Asset units, 6 decimals rounded down' }),
    asset: NullableString(),
    chain: NullableString(),
    tx_hash: NullableString({ description: 'Set after on-chain settlement' }),
    status: Type.String({ enum: [...DEPOSIT_STATUSES] }),
    failure_reason: NullableString(),
    flag_reason: NullableString(),
    payer: Type.Object(
      {
        account_name: NullableString({ description: 'As the bank gave it' }),
        account_number_last4: NullableString({ description: 'Never the full number' }),
        bank_code: NullableString(),
      },
      { description: "The payer's bank account as the bank reported it; null fields when unknown" },
    ),
    created_at: Type.String({ format: 'date-time' }),
    settled_at: NullableString({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Deposit', description: 'One NGN bank transfer into an onramp virtual account' },
);

export const DepositListQuery = Type.Object({
  onramp_id: Type.Optional(Type.String({ maxLength: 100 })),
  status: Type.Optional(Type.String({ enum: [...DEPOSIT_STATUSES] })),
  from: Type.Optional(
    Type.String({
      maxLength: 64,
      description: 'created_at lower bound, inclusive: a date (whole UTC day) or a timestamp',
    }),
  ),
  to: Type.Optional(
    Type.String({
      maxLength: 64,
      description: 'created_at upper bound, inclusive: a date (whole UTC day) or a timestamp',
    }),
  ),
  updated_since: Type.Optional(
    Type.String({
      maxLength: 64,
      description: 'updated_at lower bound, inclusive, for recovering missed status changes',
    }),
  ),
  ...PageQuery,
});

export const BalanceResponse = Type.Object(
  {
    merchant_id: Type.String(),
    balances: Type.Object({
      usd_available: Type.String({
        description:
          'USD, 6 decimals; below zero (a leading "-") while the merchant owes for a reversal it is liable for',
      }),
      usd_pending_withdrawal: Type.String({ description: 'USD, 6 decimals' }),
      usd_reserved: Type.String({
        description: "USD, 6 decimals: held by the merchant's reserve until released (v0.3)",
      }),
    }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'MerchantBalance' },
);

export const SimulateDepositBody = Type.Object(
  {
    account_number: Type.String({ maxLength: 32, description: 'The onramp virtual account' }),
    amount_ngn: Type.Union([Type.String({ maxLength: 40 }), Type.Number()], {
      description: 'NGN, at most 2 decimals; a decimal string is preferred',
    }),
    bank_reference: Type.Optional(
      Type.String({
        maxLength: 128,
        description: 'Generated (SBX-...) when absent; a repeat replays the existing deposit',
      }),
    ),
    payer: Type.Optional(
      Type.Object(
        {
          account_name: Type.Optional(Type.String({ maxLength: 200 })),
          account_number: Type.Optional(Type.String({ pattern: '^[0-9]{10}$' })),
          bank_code: Type.Optional(Type.String({ maxLength: 16 })),
        },
        {
          additionalProperties: false,
          description: 'The payer; made up from the bank reference when absent (or per field)',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export const SimulateReversalBody = Type.Object(
  { bank_reference: Type.String({ maxLength: 128 }) },
  { additionalProperties: false },
);
