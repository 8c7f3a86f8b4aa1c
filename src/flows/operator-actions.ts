import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import type { KeyEnvironment } from '../domain/key-environment';
import { MerchantStatus } from '../domain/merchant-status';
import { retryOnConflict } from '../db/retry';
import type { Resolution } from '../domain/deposit-resolution';
import { DomainError, ErrorCode, invalidParameter } from '../domain/errors';
import type { AuditLogService } from '../audit';
import {
  depositSnapshot,
  lockDeposit,
  type DepositRecord,
  type DepositResolutionService,
  type DepositReversalService,
  type ReversalOutcome,
} from '../deposits';
import {
  lockMerchant,
  merchantSnapshot,
  moveMerchant,
  type IssuedKey,
  type MerchantRecord,
  type MerchantService,
} from '../merchants';
import type { IssuedOperatorToken, OperatorTokenService } from '../operator';
import type { WebhookDeliveryView, WebhookLogService } from '../webhooks';

const DEPOSIT_ID = /^dep_[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * Everything an operator does that changes something, for the command line and the admin
 * GraphQL endpoint alike: each action and its audit entry (who, what, when, before, after)
 * commit in one transaction, so neither exists without the other.
 */
export class OperatorService {
  constructor(
    private readonly clock: Clock,
    private readonly audit: AuditLogService,
    private readonly merchants: MerchantService,
    private readonly resolutions: DepositResolutionService,
    private readonly reversals: DepositReversalService,
    private readonly webhookLog: WebhookLogService,
    private readonly operatorTokens: OperatorTokenService,
  ) {}

  async createMerchant(
    em: EntityManager,
    actor: string,
    name: string,
    environment: KeyEnvironment,
  ): Promise<{ merchant: MerchantRecord; key: IssuedKey }> {
    return em.fork().transactional(async (tx) => {
      const merchant = await this.merchants.create(tx, name);
      const key = await this.merchants.issueKey(tx, merchant.id, environment);
      await this.audit.record(tx, {
        actor,
        action: 'merchant.create',
        targetType: 'merchant',
        targetId: merchant.id,
        before: null,
        after: { ...merchantSnapshot(merchant), key_id: key.keyId },
      });
      return { merchant, key };
    });
  }

  /**
   * A frozen merchant cannot create onramps or withdraw, and transfers to its accounts are
   * FLAGGED 'Merchant account frozen'. Freezing a frozen merchant changes nothing and is not
   * audited again.
   */
  async setMerchantFrozen(
    em: EntityManager,
    actor: string,
    merchantId: string,
    frozen: boolean,
  ): Promise<MerchantRecord> {
    return retryOnConflict(() =>
      em.fork().transactional(async (tx) => {
        const merchant = await lockMerchant(tx, merchantId);
        if (!merchant) throw new DomainError(ErrorCode.NotFound, `No merchant ${merchantId}`);
        const status = frozen ? MerchantStatus.FROZEN : MerchantStatus.ACTIVE;
        if (merchant.status === status) return merchant;
        const before = merchantSnapshot(merchant);
        moveMerchant(merchant, status, this.clock.now());
        await tx.flush();
        await this.audit.record(tx, {
          actor,
          action: frozen ? 'merchant.freeze' : 'merchant.unfreeze',
          targetType: 'merchant',
          targetId: merchant.id,
          before,
          after: merchantSnapshot(merchant),
        });
        return merchant;
      }),
    );
  }

  /**
   * Manual resolution (docs/api.md, "Deposits"): FLAGGED to PENDING_FX at the current rate, or
   * to FAILED.
   */
  async resolveDeposit(
    em: EntityManager,
    actor: string,
    depositId: string,
    resolution: Resolution,
  ): Promise<DepositRecord> {
    if (!DEPOSIT_ID.test(depositId)) throw invalidParameter('deposit_id', 'is not a deposit id');
    return retryOnConflict(() =>
      em.fork().transactional(async (tx) => {
        const deposit = await lockDeposit(tx, depositId);
        if (!deposit) throw new DomainError(ErrorCode.NotFound, `No deposit ${depositId}`);
        const before = depositSnapshot(deposit);
        await this.resolutions.resolveLocked(tx, deposit, resolution, `operator:${actor}`);
        await this.audit.record(tx, {
          actor,
          action: `deposit.resolve_${resolution}`,
          targetType: 'deposit',
          targetId: deposit.id,
          before,
          after: depositSnapshot(deposit),
        });
        return deposit;
      }),
    );
  }

  /** A bank reversal the operator learned of outside the bank adapter (statement, call). */
  async recordReversal(
    em: EntityManager,
    actor: string,
    bankReference: string,
  ): Promise<ReversalOutcome> {
    return this.reversals.reverse(em, bankReference, {
      onRecorded: async (tx, deposit, before) => {
        await this.audit.record(tx, {
          actor,
          action: 'deposit.record_reversal',
          targetType: 'deposit',
          targetId: deposit.id,
          before,
          after: depositSnapshot(deposit),
        });
      },
    });
  }

  async replayWebhook(
    em: EntityManager,
    actor: string,
    eventId: string,
  ): Promise<WebhookDeliveryView> {
    return em.fork().transactional(async (tx) => {
      const delivery = await this.webhookLog.replay(tx, null, eventId);
      await this.audit.record(tx, {
        actor,
        action: 'webhook.replay',
        targetType: 'event',
        targetId: eventId,
        before: null,
        after: { delivery_id: delivery.id, status: delivery.status },
      });
      return delivery;
    });
  }

  async issueKey(
    em: EntityManager,
    actor: string,
    merchantId: string,
    environment: KeyEnvironment,
  ): Promise<IssuedKey> {
    return em.fork().transactional(async (tx) => {
      const key = await this.merchants.issueKey(tx, merchantId, environment);
      await this.audit.record(tx, {
        actor,
        action: 'api_key.issue',
        targetType: 'api_key',
        targetId: key.keyId,
        before: null,
        after: { merchant_id: merchantId, environment },
      });
      return key;
    });
  }

  async revokeKey(
    em: EntityManager,
    actor: string,
    keyIdOrSecret: string,
  ): Promise<{ keyId: string; merchantId: string; revokedAt: Date }> {
    return em.fork().transactional(async (tx) => {
      const key = await this.merchants.revokeKey(tx, keyIdOrSecret);
      const merchantId = key.merchant.id;
      const revokedAt = key.revokedAt!;
      await this.audit.record(tx, {
        actor,
        action: 'api_key.revoke',
        targetType: 'api_key',
        targetId: key.id,
        before: null,
        after: { merchant_id: merchantId, revoked_at: revokedAt.toISOString() },
      });
      return { keyId: key.id, merchantId, revokedAt };
    });
  }

  async issueOperatorToken(
    em: EntityManager,
    actor: string,
    name: string,
  ): Promise<IssuedOperatorToken> {
    return em.fork().transactional(async (tx) => {
      const issued = await this.operatorTokens.issue(tx, name);
      await this.audit.record(tx, {
        actor,
        action: 'operator_token.issue',
        targetType: 'operator_token',
        targetId: issued.tokenId,
        before: null,
        after: { name },
      });
      return issued;
    });
  }

  async revokeOperatorToken(
    em: EntityManager,
    actor: string,
    tokenId: string,
  ): Promise<{ name: string; revokedAt: Date }> {
    return em.fork().transactional(async (tx) => {
      const revoked = await this.operatorTokens.revoke(tx, tokenId);
      await this.audit.record(tx, {
        actor,
        action: 'operator_token.revoke',
        targetType: 'operator_token',
        targetId: tokenId,
        before: null,
        after: { name: revoked.name, revoked_at: revoked.revokedAt.toISOString() },
      });
      return revoked;
    });
  }
}
