import { Type } from 'typebox';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const CustomerInput = Type.Object(
  {
    first_name: Type.Optional(Type.String({ maxLength: 100 })),
    last_name: Type.Optional(Type.String({ maxLength: 100 })),
    phone: Type.Optional(
      Type.String({
        maxLength: 32,
        description: '10-15 digits with an optional leading + (spaces and dashes are dropped)',
      }),
    ),
    bvn: Type.Optional(
      Type.String({ maxLength: 11, description: 'Bank Verification Number, 11 digits' }),
    ),
    nin: Type.Optional(
      Type.String({ maxLength: 11, description: 'National Identification Number, 11 digits' }),
    ),
  },
  {
    additionalProperties: false,
    description:
      "What a bank provider may need about the payer before it opens an account. Stored sealed; answers show only which fields were given and an identity number's last 4 digits",
  },
);

export const CreateOnrampBody = Type.Object(
  {
    type: Type.String({ enum: ['THROWAWAY', 'EPHEMERAL', 'PERMANENT'] }),
    user: Type.Object({ email: Type.String({ maxLength: 320 }) }, { additionalProperties: false }),
    rate_id: Type.Optional(
      Type.String({ maxLength: 100, description: 'Required for THROWAWAY and EPHEMERAL' }),
    ),
    amount_ngn: Type.Optional(
      Type.String({
        maxLength: 40,
        description:
          'The amount expected (NGN decimal string, 2 places at most); THROWAWAY and EPHEMERAL only. Checked against the underpayment and overpayment settings',
      }),
    ),
    payer_name: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'The name the transfer is expected from (checked when payer_name_check is on)',
      }),
    ),
    customer: Type.Optional(CustomerInput),
    settlement: Type.Object(
      {
        mode: Type.String({ enum: ['AUTO_WITHDRAW', 'MERCHANT_BALANCE'] }),
        asset: Type.Optional(Type.String({ maxLength: 16 })),
        chain: Type.Optional(
          Type.String({ maxLength: 16, description: 'BASE, ETHEREUM (or ETH), POLYGON' }),
        ),
        destination_address: Type.Optional(Type.String({ maxLength: 200 })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

const OnrampCustomerSummary = Type.Object(
  {
    fields: Type.Array(Type.String({ enum: ['first_name', 'last_name', 'phone', 'bvn', 'nin'] }), {
      description: 'The customer fields given at creation (names and phone are never shown back)',
    }),
    bvn_last4: Nullable(
      Type.String({ description: "The BVN's last 4 digits; null when not given" }),
    ),
    nin_last4: Nullable(
      Type.String({ description: "The NIN's last 4 digits; null when not given" }),
    ),
  },
  { description: 'The customer record given at creation, as far as it is shown; null when none' },
);

const onrampFields = {
  onramp_id: Type.String(),
  type: Type.String({ enum: ['THROWAWAY', 'EPHEMERAL', 'PERMANENT'] }),
  status: Type.String({ enum: ['ACTIVE', 'EXPIRED', 'COMPLETED', 'DEACTIVATED'] }),
  rate_id: Nullable(Type.String()),
  payment_reference: Type.String(),
  virtual_account: Type.Object({
    account_number: Type.String(),
    account_name: Type.String(),
    bank_name: Type.String(),
    bank_code: Type.String(),
  }),
  expires_at: Nullable(Type.String({ format: 'date-time' })),
  settlement: Type.Object({
    mode: Type.String({ enum: ['AUTO_WITHDRAW', 'MERCHANT_BALANCE'] }),
    asset: Type.Optional(Type.String({ enum: ['USDC', 'USDT'] })),
    chain: Type.Optional(Type.String({ enum: ['BASE', 'ETHEREUM', 'POLYGON'] })),
    destination_address: Type.Optional(Type.String()),
  }),
  user: Type.Object({ email: Type.String() }),
  amount_ngn: Nullable(
    Type.String({ description: 'The amount expected (NGN, 2 decimals); null when not set' }),
  ),
  payer_name: Nullable(Type.String({ description: 'The payer expected; null when not set' })),
  customer: Type.Union([OnrampCustomerSummary, Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
};

export const OnrampResponse = Type.Object(onrampFields, { $id: 'Onramp' });

export const CreatedOnrampResponse = Type.Object(
  {
    ...onrampFields,
    client_secret: Type.String({ description: 'oc_...: shown only in this response' }),
  },
  { $id: 'CreatedOnramp', description: 'The onramp and its client secret (shown once)' },
);

export const Pagination = Type.Object(
  {
    total: Type.Integer(),
    page: Type.Integer(),
    per_page: Type.Integer(),
    total_pages: Type.Integer(),
  },
  { $id: 'Pagination' },
);

export const PageQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
};

export const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
