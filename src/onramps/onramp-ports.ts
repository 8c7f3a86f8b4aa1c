import type { EntityManager } from '@mikro-orm/postgresql';
import type { MerchantStatus } from '../domain/merchant-status';

/**
 * What creating an onramp needs from other modules, as ports the composition root fills
 * (rates' RateService, sandbox's SandboxService, merchants' reads), so onramps import no
 * other module.
 */
export interface QuotedRate {
  id: string;
  to: string;
  expiresAt: Date;
}

export interface OnrampRates {
  /** The valid rate a merchant is quoted now; throws rate_unavailable when there is none. */
  current(
    em: EntityManager,
    query: { from: 'NGN'; to: string },
    merchantId: string,
  ): Promise<QuotedRate>;
  /** A rate this merchant may use (null: unknown to it). */
  findForMerchant(
    em: EntityManager,
    rateId: string,
    merchantId: string,
  ): Promise<QuotedRate | null>;
}

export interface OnrampSandbox {
  /** Schedules the sandbox merchant's automatic deposit to the new account, if it set one. */
  scheduleAutoDeposit(
    tx: EntityManager,
    merchantId: string,
    onrampId: string,
    accountNumber: string,
  ): Promise<void>;
}

export interface OnrampMerchants {
  /** The merchant (null: no such merchant). */
  find(em: EntityManager, merchantId: string): Promise<OnrampMerchant | null>;
  /** The same, its row locked FOR UPDATE in `tx` (a freeze waits for the creation). */
  lock(tx: EntityManager, merchantId: string): Promise<OnrampMerchant | null>;
  /** Moves a merchant `lock` gave (merchants' `moveMerchant`, checked against its lifecycle). */
  move(merchant: OnrampMerchant, to: MerchantStatus, now: Date): void;
}

/** The merchant's row as onramp creation sees it (it freezes one over its daily limit). */
export interface OnrampMerchant {
  name: string;
  status: string;
  updatedAt: Date;
}
