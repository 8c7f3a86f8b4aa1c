import { Field, InputType, ObjectType, GraphQLISODateTime } from 'type-graphql';
import type { SandboxScenario } from '../../../db/entities/sandbox-scenario.entity';

@InputType('SandboxScenarioInput', {
  description:
    'Fields left out keep their current value. More fault kinds arrive with their features.',
})
export class SandboxScenarioInput {
  @Field(() => Boolean, {
    nullable: true,
    description: 'Stop the sandbox rate source (deployment-wide: rates are shared).',
  })
  rateSourceDown?: boolean | null;
}

@ObjectType('SandboxScenario')
export class SandboxScenarioType {
  @Field(() => Boolean)
  rateSourceDown!: boolean;

  @Field(() => GraphQLISODateTime)
  updatedAt!: Date;

  static from(row: SandboxScenario): SandboxScenarioType {
    return Object.assign(new SandboxScenarioType(), {
      rateSourceDown: row.rateSourceDown,
      updatedAt: row.updatedAt,
    });
  }
}
