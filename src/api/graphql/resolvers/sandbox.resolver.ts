import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { DomainError, ErrorCode } from '../../../domain/errors';
import { SandboxScenarioInput, SandboxScenarioType } from '../types/sandbox-scenario.type';

function requireSandbox(ctx: GraphQLContext): void {
  if (ctx.services.config.ONRAMP_ENV !== 'sandbox') {
    throw new DomainError(ErrorCode.NotFound, 'Sandbox operations are not available in production');
  }
}

@Resolver()
export class SandboxResolver {
  @Mutation(() => SandboxScenarioType, {
    description: 'Sandbox only: set or clear fault scenarios.',
  })
  async setSandboxScenario(
    @Arg('input', () => SandboxScenarioInput) input: SandboxScenarioInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<SandboxScenarioType> {
    requireSandbox(ctx);
    return SandboxScenarioType.from(
      await ctx.services.sandbox.set(ctx.em, ctx.principal.merchantId, input),
    );
  }
}
