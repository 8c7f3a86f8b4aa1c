import { GraphQLJSON } from 'graphql-scalars';
import { Field, GraphQLISODateTime, ObjectType } from 'type-graphql';
import type { PendingChange } from '../../../domain/settings-widening';

@ObjectType('PendingSettingChange', {
  description:
    'A widening of one setting waiting for WITHDRAWAL_ADDRESS_DELAY_SECONDS; the setting keeps its old value until effectiveAt.',
})
export class PendingSettingChangeNode {
  @Field(() => String, {
    description:
      "The setting's dotted path as REST names it: require_address_book, underpayment.tolerance_ngn, payer_resolution.allow_settle...",
  })
  field!: string;

  @Field(() => GraphQLJSON, {
    description: 'The value as it was requested, as REST shows it (a boolean, string or integer).',
  })
  value!: unknown;

  @Field(() => GraphQLISODateTime) effectiveAt!: Date;

  static from(change: PendingChange): PendingSettingChangeNode {
    return Object.assign(new PendingSettingChangeNode(), {
      field: change.field,
      value: change.value,
      effectiveAt: new Date(change.effective_at),
    });
  }
}
