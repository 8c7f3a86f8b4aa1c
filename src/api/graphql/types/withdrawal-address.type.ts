import {
  Field,
  GraphQLISODateTime,
  ID,
  InputType,
  Int,
  ObjectType,
  registerEnumType,
} from 'type-graphql';
import type { WithdrawalAddressView } from '../../../payouts';
import type { MerchantSettingsView } from '../../../merchants';
import { PageInfoType } from './connection';
import {
  AmountRuleInput,
  AmountRuleNode,
  PayerNameCheckInput,
  PayerNameCheckNode,
  PayerResolutionInput,
  PayerResolutionNode,
} from './payment-rules.type';
import { PendingSettingChangeNode } from './pending-change.type';

export enum WithdrawalAddressStatusEnum {
  PENDING = 'PENDING',
  ACTIVE = 'ACTIVE',
  DELETED = 'DELETED',
}
registerEnumType(WithdrawalAddressStatusEnum, { name: 'WithdrawalAddressStatus' });

@ObjectType('WithdrawalAddress', {
  description:
    'An entry of the withdrawal address book: withdrawals may go to it once ACTIVE (activeAt).',
})
export class WithdrawalAddressNode {
  @Field(() => ID) id!: string;
  @Field(() => String, { description: 'BASE, ETHEREUM or POLYGON.' }) chain!: string;
  @Field(() => String, { description: 'EIP-55 checksummed.' }) address!: string;
  @Field(() => String, { nullable: true }) label!: string | null;
  @Field(() => WithdrawalAddressStatusEnum, {
    description: 'PENDING until activeAt, then ACTIVE; DELETED in the answer to a removal.',
  })
  status!: WithdrawalAddressStatusEnum;
  @Field(() => GraphQLISODateTime) activeAt!: Date;
  @Field(() => GraphQLISODateTime) createdAt!: Date;

  /** From the transport-neutral view, so REST, GraphQL and webhooks agree. */
  static from(view: WithdrawalAddressView): WithdrawalAddressNode {
    return Object.assign(new WithdrawalAddressNode(), {
      id: view.id,
      chain: view.chain,
      address: view.address,
      label: view.label,
      status: view.status as WithdrawalAddressStatusEnum,
      activeAt: new Date(view.active_at),
      createdAt: new Date(view.created_at),
    });
  }
}

@ObjectType('WithdrawalAddressEdge')
export class WithdrawalAddressEdgeType {
  @Field(() => String) cursor!: string;
  @Field(() => WithdrawalAddressNode) node!: WithdrawalAddressNode;
}

@ObjectType('WithdrawalAddressConnection')
export class WithdrawalAddressConnectionType {
  @Field(() => [WithdrawalAddressEdgeType]) edges!: WithdrawalAddressEdgeType[];
  @Field(() => PageInfoType) pageInfo!: PageInfoType;
  @Field(() => Int) totalCount!: number;
}

/** Plain strings: the service checks the values, so errors match REST's codes. */
@InputType('AddWithdrawalAddressInput')
export class AddWithdrawalAddressInput {
  @Field(() => String, { description: 'BASE, ETHEREUM (or ETH) or POLYGON.' }) chain!: string;
  @Field(() => String) address!: string;
  @Field(() => String, { nullable: true, description: 'At most 100 characters.' })
  label?: string | null;
}

@ObjectType('MerchantSettings', { description: 'Your settings, as they apply.' })
export class MerchantSettingsNode {
  @Field(() => Boolean, {
    description:
      'Withdrawals only to ACTIVE address book entries (never set: on in production, off in the sandbox).',
  })
  requireAddressBook!: boolean;

  @Field(() => AmountRuleNode) underpayment!: AmountRuleNode;
  @Field(() => AmountRuleNode) overpayment!: AmountRuleNode;
  @Field(() => PayerNameCheckNode) payerNameCheck!: PayerNameCheckNode;
  @Field(() => [String], {
    description:
      'Browser origins (https://host[:port]) whose pages may use client secrets; the sandbox also allows http://localhost on any port.',
  })
  allowedOrigins!: string[];
  @Field(() => PayerResolutionNode) payerResolution!: PayerResolutionNode;
  @Field(() => [PendingSettingChangeNode], {
    description: 'Widenings waiting for their delay, soonest first; empty when none.',
  })
  pendingChanges!: PendingSettingChangeNode[];

  static from(view: MerchantSettingsView): MerchantSettingsNode {
    return Object.assign(new MerchantSettingsNode(), {
      requireAddressBook: view.require_address_book,
      underpayment: AmountRuleNode.from(view.underpayment),
      overpayment: AmountRuleNode.from(view.overpayment),
      payerNameCheck: PayerNameCheckNode.from(view.payer_name_check),
      allowedOrigins: view.allowed_origins,
      payerResolution: Object.assign(new PayerResolutionNode(), {
        allowSettle: view.payer_resolution.allow_settle,
      }),
      pendingChanges: view.pending_changes.map((change) => PendingSettingChangeNode.from(change)),
    });
  }
}

@InputType('UpdateMerchantSettingsInput', { description: 'Only the fields given change.' })
export class UpdateMerchantSettingsInput {
  @Field(() => Boolean, { nullable: true }) requireAddressBook?: boolean | null;
  @Field(() => AmountRuleInput, { nullable: true }) underpayment?: AmountRuleInput | null;
  @Field(() => AmountRuleInput, { nullable: true }) overpayment?: AmountRuleInput | null;
  @Field(() => PayerNameCheckInput, { nullable: true })
  payerNameCheck?: PayerNameCheckInput | null;
  @Field(() => [String], {
    nullable: true,
    description:
      'Replaces the list (at most 20 entries, each https://host[:port] exactly; in the sandbox http://localhost[:port] too); [] clears it.',
  })
  allowedOrigins?: string[] | null;
  @Field(() => PayerResolutionInput, { nullable: true })
  payerResolution?: PayerResolutionInput | null;
}
