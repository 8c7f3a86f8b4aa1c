import { Field, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { AmountRule, PayerNameCheck } from '../../../domain/payment-rules';

/** GraphQL names in capitals, the values the service and REST use in lower case. */
export enum PaymentRuleActionEnum {
  ACCEPT = 'accept',
  FLAG = 'flag',
  RETURN = 'return',
}
registerEnumType(PaymentRuleActionEnum, {
  name: 'PaymentRuleAction',
  description: 'ACCEPT: settle as usual; FLAG: FLAGGED; RETURN: FLAGGED, then returned',
});

@ObjectType('AmountRule', {
  description:
    'Within tolerance when |received - expected| <= max(toleranceNgn, expected x toleranceBps / 10,000); only onramps with amountNgn are checked.',
})
export class AmountRuleNode {
  @Field(() => String, { description: 'NGN, 2 decimals' }) toleranceNgn!: string;
  @Field(() => Int) toleranceBps!: number;
  @Field(() => PaymentRuleActionEnum) action!: PaymentRuleActionEnum;

  static from(rule: AmountRule): AmountRuleNode {
    return Object.assign(new AmountRuleNode(), {
      toleranceNgn: rule.tolerance_ngn,
      toleranceBps: rule.tolerance_bps,
      action: rule.action as PaymentRuleActionEnum,
    });
  }
}

@ObjectType('PayerNameCheck', {
  description: 'Deposits to onramps with payerName from someone else: "Payer name mismatch".',
})
export class PayerNameCheckNode {
  @Field(() => Boolean) enabled!: boolean;
  @Field(() => PaymentRuleActionEnum, { description: 'FLAG or RETURN' })
  action!: PaymentRuleActionEnum;

  static from(check: PayerNameCheck): PayerNameCheckNode {
    return Object.assign(new PayerNameCheckNode(), {
      enabled: check.enabled,
      action: check.action as PaymentRuleActionEnum,
    });
  }
}

@ObjectType('PayerResolution', {
  description: 'What payer resolution links may offer besides a return.',
})
export class PayerResolutionNode {
  @Field(() => Boolean, {
    description: "Converting at today's rate may be offered (only for reasons a payer can fix).",
  })
  allowSettle!: boolean;
}

@InputType('PayerResolutionInput', { description: 'Only the fields given change.' })
export class PayerResolutionInput {
  @Field(() => Boolean, { nullable: true }) allowSettle?: boolean | null;
}

export function payerResolutionPatch(input: PayerResolutionInput | null | undefined) {
  if (!input) return undefined;
  return input.allowSettle != null ? { allow_settle: input.allowSettle } : {};
}

@InputType('AmountRuleInput', { description: 'Only the fields given change.' })
export class AmountRuleInput {
  @Field(() => String, { nullable: true }) toleranceNgn?: string | null;
  @Field(() => Int, { nullable: true }) toleranceBps?: number | null;
  @Field(() => PaymentRuleActionEnum, { nullable: true }) action?: PaymentRuleActionEnum | null;
}

@InputType('PayerNameCheckInput', { description: 'Only the fields given change.' })
export class PayerNameCheckInput {
  @Field(() => Boolean, { nullable: true }) enabled?: boolean | null;
  @Field(() => PaymentRuleActionEnum, { nullable: true }) action?: PaymentRuleActionEnum | null;
}

/** An input as the service's snake_case patch; fields not given stay out. */
export function amountRulePatch(input: AmountRuleInput | null | undefined) {
  if (!input) return undefined;
  return {
    ...(input.toleranceNgn != null ? { tolerance_ngn: input.toleranceNgn } : {}),
    ...(input.toleranceBps != null ? { tolerance_bps: input.toleranceBps } : {}),
    ...(input.action != null ? { action: input.action } : {}),
  };
}

export function nameCheckPatch(input: PayerNameCheckInput | null | undefined) {
  if (!input) return undefined;
  return {
    ...(input.enabled != null ? { enabled: input.enabled } : {}),
    ...(input.action != null ? { action: input.action } : {}),
  };
}
