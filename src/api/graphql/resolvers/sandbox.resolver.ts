import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { DomainError, ErrorCode } from '../../../domain/errors';
import { requireSecretKey } from '../../../merchants';
import { sandboxPayer } from '../../../sandbox';
import { newSandboxBankReference } from '../../../domain/ids';
import { DepositNode } from '../types/deposit.type';
import {
  SandboxScenarioInput,
  SandboxScenarioType,
  SimulateDepositInput,
} from '../types/sandbox-scenario.type';

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
    const { merchantId } = requireSecretKey(ctx.principal);
    return SandboxScenarioType.from(await ctx.services.sandbox.set(ctx.em, merchantId, input));
  }

  @Mutation(() => DepositNode, {
    description:
      'Sandbox only: a simulated NGN transfer into one of your virtual accounts, through the same ingestion as the bank. A repeated bankReference returns the existing deposit.',
  })
  async simulateDeposit(
    @Arg('input', () => SimulateDepositInput) input: SimulateDepositInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<DepositNode> {
    requireSandbox(ctx);
    const { merchantId } = requireSecretKey(ctx.principal);
    const bankReference = input.bankReference ?? newSandboxBankReference();
    const payer = input.payer;
    const outcome = await ctx.services.ingestion.receive(
      ctx.em,
      {
        accountNumber: input.accountNumber,
        amountNgn: input.amountNgn,
        bankReference,
        ...sandboxPayer(
          bankReference,
          payer && {
            account_name: payer.accountName,
            account_number: payer.accountNumber,
            bank_code: payer.bankCode,
          },
        ),
      },
      { merchantId },
    );
    if (outcome.kind !== 'deposit') {
      throw new DomainError(
        ErrorCode.NotFound,
        `No onramp of yours has account number ${input.accountNumber}`,
      );
    }
    return DepositNode.from(outcome.deposit);
  }

  @Mutation(() => DepositNode, {
    description: 'Sandbox only: a simulated bank reversal of one of your deposits.',
  })
  async simulateReversal(
    @Arg('bankReference', () => String) bankReference: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<DepositNode> {
    requireSandbox(ctx);
    const { merchantId } = requireSecretKey(ctx.principal);
    const { deposit } = await ctx.services.reversals.reverse(ctx.em, bankReference, {
      merchantId,
    });
    return DepositNode.from(deposit);
  }
}
