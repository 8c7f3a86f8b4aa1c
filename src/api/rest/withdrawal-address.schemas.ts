import { Type } from 'typebox';
import {
  AmountRulePatch,
  AmountRuleResponse,
  PayerNameCheckPatch,
  PayerNameCheckResponse,
  PayerResolutionPatch,
  PayerResolutionResponse,
} from './payment-rules.schemas';
import { PageQuery, Pagination } from './onramp.schemas';
import { refTo } from './schemas';

/**
 * Shape and length only; the values (chain, the address's checksum, the label's length) are
 * the service's job, so REST and GraphQL answer the same error codes.
 */
export const NewWithdrawalAddressBody = Type.Object(
  {
    chain: Type.String({ maxLength: 16, description: 'BASE, ETHEREUM (or ETH), POLYGON' }),
    address: Type.String({
      maxLength: 200,
      description: 'EVM address (stored EIP-55 checksummed)',
    }),
    label: Type.Optional(
      Type.Union([Type.String({ maxLength: 100 }), Type.Null()], {
        description: 'Your own name for it, at most 100 characters',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The WithdrawalAddress object of docs/api.md. */
export const WithdrawalAddressResponse = Type.Object(
  {
    id: Type.String({ description: '`wa_` + ULID' }),
    chain: Type.String({ enum: ['BASE', 'ETHEREUM', 'POLYGON'] }),
    address: Type.String({ description: 'EIP-55 checksummed' }),
    label: Type.Union([Type.String(), Type.Null()]),
    status: Type.String({
      enum: ['PENDING', 'ACTIVE', 'DELETED'],
      description:
        'PENDING until active_at, then ACTIVE (withdrawals may go to it); DELETED only in the ' +
        "answer to DELETE and in the withdrawal_address.deleted event's data",
    }),
    active_at: Type.String({
      format: 'date-time',
      description: 'created_at + WITHDRAWAL_ADDRESS_DELAY_SECONDS',
    }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'WithdrawalAddress', description: 'An entry of the withdrawal address book' },
);

export const WithdrawalAddressListQuery = Type.Object(PageQuery);

export const WithdrawalAddressListResponse = Type.Object({
  withdrawal_addresses: Type.Array(refTo(WithdrawalAddressResponse)),
  pagination: refTo(Pagination),
});

/** A widening of one setting waiting for its delay (issue 32). */
const PendingSettingChange = Type.Object(
  {
    field: Type.String({
      description:
        'Dotted path of the setting that changes: require_address_book, ' +
        'underpayment.tolerance_ngn, underpayment.tolerance_bps, underpayment.action (the same ' +
        'for overpayment), payer_name_check.enabled, payer_resolution.allow_settle',
    }),
    value: Type.Union([Type.Boolean(), Type.String(), Type.Integer()], {
      description: 'The value as it was requested',
    }),
    effective_at: Type.String({
      format: 'date-time',
      description: 'The request time + WITHDRAWAL_ADDRESS_DELAY_SECONDS',
    }),
  },
  { additionalProperties: false },
);

/** The merchant's settings; issue 22 adds its fields here. */
export const MerchantSettingsResponse = Type.Object(
  {
    require_address_book: Type.Boolean({
      description:
        'Withdrawals only to ACTIVE address book entries. Never set: on in production, off in the sandbox (the value shown is the one that applies)',
    }),
    underpayment: AmountRuleResponse,
    overpayment: AmountRuleResponse,
    payer_name_check: PayerNameCheckResponse,
    allowed_origins: Type.Array(Type.String(), {
      description:
        'Browser origins (`https://host[:port]`) whose pages may call the API with a client secret; the sandbox also allows `http://localhost` on any port. Empty: none',
    }),
    payer_resolution: PayerResolutionResponse,
    pending_changes: Type.Array(PendingSettingChange, {
      description:
        'Widening changes waiting for WITHDRAWAL_ADDRESS_DELAY_SECONDS, soonest first; the ' +
        'settings above keep their old values until each effective_at. Empty when none',
    }),
  },
  { $id: 'MerchantSettings', description: "The merchant's own settings (effective values)" },
);

export const MerchantSettingsPatchBody = Type.Object(
  {
    require_address_book: Type.Optional(Type.Boolean()),
    underpayment: Type.Optional(AmountRulePatch),
    overpayment: Type.Optional(AmountRulePatch),
    payer_name_check: Type.Optional(PayerNameCheckPatch),
    allowed_origins: Type.Optional(
      Type.Array(Type.String({ maxLength: 300 }), {
        maxItems: 100,
        description:
          'Replaces the list: at most 20 entries, each `https://host[:port]` exactly (lower-case host, no path, no trailing slash, no wildcard; in the sandbox `http://localhost[:port]` too); [] clears it',
      }),
    ),
    payer_resolution: Type.Optional(PayerResolutionPatch),
  },
  { additionalProperties: false },
);
