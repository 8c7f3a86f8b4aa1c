import { Type } from 'typebox';

/** The payment rules in the merchant settings (issue 22): answer and PATCH shapes. */
const ACTIONS = ['accept', 'flag', 'return'];

const amountRuleDescription =
  'Within tolerance when |received - expected| <= max(tolerance_ngn, expected x tolerance_bps / 10,000); only onramps with amount_ngn are checked';

export const AmountRuleResponse = Type.Object(
  {
    tolerance_ngn: Type.String({ description: 'NGN, 2 decimals' }),
    tolerance_bps: Type.Integer({ minimum: 0, maximum: 10000 }),
    action: Type.String({
      enum: ACTIONS,
      description: 'accept: settle as usual; flag: FLAGGED; return: FLAGGED, then returned',
    }),
  },
  { description: amountRuleDescription },
);

export const PayerNameCheckResponse = Type.Object(
  {
    enabled: Type.Boolean(),
    action: Type.String({ enum: ['flag', 'return'] }),
  },
  {
    description:
      'Deposits to onramps with payer_name whose payer\'s name does not match are flagged "Payer name mismatch" (or returned)',
  },
);

export const AmountRulePatch = Type.Object(
  {
    tolerance_ngn: Type.Optional(Type.String({ maxLength: 40 })),
    tolerance_bps: Type.Optional(Type.Integer({ minimum: 0, maximum: 10000 })),
    action: Type.Optional(Type.String({ enum: ACTIONS })),
  },
  { additionalProperties: false },
);

export const PayerNameCheckPatch = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    action: Type.Optional(Type.String({ enum: ['flag', 'return'] })),
  },
  { additionalProperties: false },
);

export const PayerResolutionResponse = Type.Object(
  {
    allow_settle: Type.Boolean({
      description:
        "A payer resolution link may offer converting at today's rate (only for reasons a payer can fix)",
    }),
  },
  { description: 'What payer resolution links may offer besides a return (default: return only)' },
);

export const PayerResolutionPatch = Type.Object(
  { allow_settle: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
