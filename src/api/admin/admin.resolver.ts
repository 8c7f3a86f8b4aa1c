import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { KeyEnvironment } from '../../domain/key-environment';
import { DomainError, ErrorCode } from '../../domain/errors';
import { decodeCursor, encodeCursor, parseFirst } from '../../domain/pagination';
import { narrowedTo } from '../../context/request-context';
import { environmentOf } from '../../container';
import { checkLedger, LEDGER_CHECK_NAMES } from '../../reconciliation';
import { connectionOf } from '../graphql/types/connection';
import { DepositConnectionType, DepositNode } from '../graphql/types/deposit.type';
import { WebhookDeliveryType } from '../graphql/types/webhook.type';
import { actorOf, type AdminContext } from './admin-context';
import {
  AdminMerchantType,
  AuditEntryConnectionType,
  AuditEntryType,
  CreatedMerchantType,
  DepositResolutionEnum,
  IssuedApiKeyType,
  KeyEnvironmentEnum,
  LedgerCheckReportType,
  RevokedApiKeyType,
} from './admin.types';

/**
 * The operator's GraphQL endpoint (`/admin/graphql`, operator token only): the same actions as
 * the `onramp` command line, each audited with the token's name as the actor.
 */
@Resolver()
export class AdminResolver {
  @Query(() => DepositConnectionType, {
    description: 'FLAGGED deposits of every merchant (or one), newest first, with flagReason.',
  })
  async flaggedDeposits(
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Arg('merchantId', () => ID, { nullable: true }) merchantId: string | null,
    @Ctx() ctx: AdminContext,
  ): Promise<DepositConnectionType> {
    const page = await ctx.services.deposits.listAfter(
      ctx.em,
      narrowedTo(ctx.requestContext, merchantId || null),
      { status: 'FLAGGED' },
      { first, after },
    );
    return Object.assign(new DepositConnectionType(), {
      ...connectionOf(page.deposits, DepositNode.from, encodeCursor, page.hasMore, !!after),
      totalCount: page.total,
    });
  }

  @Query(() => AuditEntryConnectionType, {
    description: 'Operator actions, newest first; targetId narrows to one object.',
  })
  async auditLog(
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Arg('targetId', () => ID, { nullable: true }) targetId: string | null,
    @Ctx() ctx: AdminContext,
  ): Promise<AuditEntryConnectionType> {
    const page = await ctx.services.auditLog.list(ctx.em, {
      targetId,
      after: after ? decodeCursor(after) : null,
      limit: parseFirst(first),
    });
    return Object.assign(
      new AuditEntryConnectionType(),
      connectionOf(page.entries, AuditEntryType.from, encodeCursor, page.hasMore, !!after),
    );
  }

  @Query(() => LedgerCheckReportType, {
    description: 'Checks every ledger invariant (as `onramp ledger check`).',
  })
  async ledgerCheck(@Ctx() ctx: AdminContext): Promise<LedgerCheckReportType> {
    const connection = ctx.em.getConnection();
    const violations = await checkLedger((sql, params) => connection.execute(sql, params));
    return { ok: violations.length === 0, checked: [...LEDGER_CHECK_NAMES], violations };
  }

  @Query(() => GraphQLJSONObject, {
    description:
      'The treasury view (as `onramp treasury`): serviceOwned (NGN clearing, USD owed to merchants and on-chain), excluded (NGN suspense and returns of FLAGGED/FAILED deposits, USD suspense), accounts, deposits by status, hotWallets per chain and asset.',
  })
  async treasury(@Ctx() ctx: AdminContext): Promise<Record<string, unknown>> {
    return { ...(await ctx.services.treasury.report(ctx.em)) };
  }

  @Mutation(() => CreatedMerchantType, {
    description: 'A merchant and its first secret key (shown once).',
  })
  async createMerchant(
    @Arg('name', () => String) name: string,
    @Ctx() ctx: AdminContext,
  ): Promise<CreatedMerchantType> {
    const environment = environmentOf(ctx.services.config);
    const { merchant, key } = await ctx.services.operator.createMerchant(
      ctx.em,
      actorOf(ctx),
      name,
      environment,
    );
    return {
      merchant: AdminMerchantType.from(merchant),
      key: { ...key, environment: key.environment as unknown as KeyEnvironmentEnum },
    };
  }

  @Mutation(() => AdminMerchantType, {
    description:
      "No new onramps or withdrawals (403 merchant_frozen); its transfers are FLAGGED 'Merchant account frozen'.",
  })
  async freezeMerchant(
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: AdminContext,
  ): Promise<AdminMerchantType> {
    return AdminMerchantType.from(
      await ctx.services.operator.setMerchantFrozen(ctx.em, actorOf(ctx), id, true),
    );
  }

  @Mutation(() => AdminMerchantType)
  async unfreezeMerchant(
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: AdminContext,
  ): Promise<AdminMerchantType> {
    return AdminMerchantType.from(
      await ctx.services.operator.setMerchantFrozen(ctx.em, actorOf(ctx), id, false),
    );
  }

  @Mutation(() => Boolean, {
    description:
      'Sandbox only: takes the rate source down for every merchant (true) or brings it back; answers whether it is down. A merchant can only take it down for itself (setSandboxScenario).',
  })
  async setSandboxRateSourceDown(
    @Arg('down', () => Boolean) down: boolean,
    @Ctx() ctx: AdminContext,
  ): Promise<boolean> {
    if (ctx.services.config.ONRAMP_ENV !== 'sandbox') {
      throw new DomainError(ErrorCode.NotFound, 'Sandbox switches are not available in production');
    }
    return ctx.services.sandbox.setDeploymentRateSourceDown(ctx.em, actorOf(ctx), down);
  }

  @Mutation(() => DepositNode, {
    description: 'Resolves a FLAGGED deposit (manual resolution, docs/api.md).',
  })
  async resolveDeposit(
    @Arg('id', () => ID) id: string,
    @Arg('resolution', () => DepositResolutionEnum) resolution: DepositResolutionEnum,
    @Ctx() ctx: AdminContext,
  ): Promise<DepositNode> {
    const deposit = await ctx.services.operator.resolveDeposit(
      ctx.em,
      actorOf(ctx),
      id,
      resolution === DepositResolutionEnum.SETTLE ? 'settle' : 'return',
    );
    return DepositNode.from(deposit);
  }

  @Mutation(() => DepositNode, {
    description:
      'Records a bank reversal by bank reference (once; a repeat returns the deposit as is).',
  })
  async recordBankReversal(
    @Arg('bankReference', () => String) bankReference: string,
    @Ctx() ctx: AdminContext,
  ): Promise<DepositNode> {
    const outcome = await ctx.services.operator.recordReversal(ctx.em, actorOf(ctx), bankReference);
    return DepositNode.from(outcome.deposit);
  }

  @Mutation(() => WebhookDeliveryType, {
    description: "Sends any merchant's event again, as a new delivery.",
  })
  async replayWebhookEvent(
    @Arg('eventId', () => ID) eventId: string,
    @Ctx() ctx: AdminContext,
  ): Promise<WebhookDeliveryType> {
    return WebhookDeliveryType.from(
      await ctx.services.operator.replayWebhook(ctx.em, actorOf(ctx), eventId),
    );
  }

  @Mutation(() => IssuedApiKeyType, { description: 'A new secret key (shown once).' })
  async issueApiKey(
    @Arg('merchantId', () => ID) merchantId: string,
    @Arg('environment', () => KeyEnvironmentEnum, { nullable: true })
    environment: KeyEnvironmentEnum | null,
    @Ctx() ctx: AdminContext,
  ): Promise<IssuedApiKeyType> {
    const env =
      (environment as unknown as KeyEnvironment | null) ?? environmentOf(ctx.services.config);
    const key = await ctx.services.operator.issueKey(ctx.em, actorOf(ctx), merchantId, env);
    return { ...key, environment: key.environment as unknown as KeyEnvironmentEnum };
  }

  @Mutation(() => RevokedApiKeyType, { description: 'Revokes a key by id (key_...) or by itself.' })
  async revokeApiKey(
    @Arg('key', () => String) key: string,
    @Ctx() ctx: AdminContext,
  ): Promise<RevokedApiKeyType> {
    return ctx.services.operator.revokeKey(ctx.em, actorOf(ctx), key);
  }
}
