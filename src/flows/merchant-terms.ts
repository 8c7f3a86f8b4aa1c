import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { retryOnConflict } from '../db/retry';
import { DomainError, ErrorCode } from '../domain/errors';
import {
  parseLiability,
  parseReserveTerms,
  type ReserveTerms,
  type ReversalLiability,
} from '../domain/reserves';
import type { AuditLogService } from '../audit';
import { readMerchantTerms, writeMerchantTerms, type MerchantLedgerTerms } from '../ledger';
import { lockMerchant } from '../merchants';

/** The terms as the command line and the admin API show them (and the audit log keeps them). */
export interface MerchantTermsView {
  merchant_id: string;
  /** Who bears this merchant's reversals now: its own setting, else `REVERSAL_LIABILITY`. */
  reversal_liability: ReversalLiability;
  /** The operator's setting for this merchant (null: the deployment's default). */
  reversal_liability_override: ReversalLiability | null;
  reserve: { percent_bps: number; hold_days: number } | null;
}

/**
 * The operator's settings of a merchant's balance (docs/api.md, "Losses, reserves and
 * sanctions"): reversal liability and reserve. Input is checked before anything is read, so a
 * bad value changes nothing; each change and its audit entry commit together.
 */
export class MerchantTermsActions {
  constructor(
    private readonly clock: Clock,
    private readonly audit: AuditLogService,
    private readonly defaultLiability: ReversalLiability,
  ) {}

  view(terms: MerchantLedgerTerms): MerchantTermsView {
    return {
      merchant_id: terms.merchantId,
      reversal_liability: terms.reversalLiability ?? this.defaultLiability,
      reversal_liability_override: terms.reversalLiability,
      reserve: terms.reserve
        ? { percent_bps: terms.reserve.percentBps, hold_days: terms.reserve.holdDays }
        : null,
    };
  }

  async read(em: EntityManager, merchantId: string): Promise<MerchantTermsView> {
    return this.view(await readMerchantTerms(em, merchantId));
  }

  async setLiability(
    em: EntityManager,
    actor: string,
    merchantId: string,
    liability: unknown,
  ): Promise<MerchantTermsView> {
    const reversalLiability = parseLiability(liability);
    return this.change(em, actor, merchantId, 'merchant.set_liability', { reversalLiability });
  }

  /** `percentBps` and `holdDays` both, or neither (null: clear the reserve). */
  async setReserve(
    em: EntityManager,
    actor: string,
    merchantId: string,
    reserve: { percentBps: unknown; holdDays: unknown } | null,
  ): Promise<MerchantTermsView> {
    const terms: ReserveTerms | null = reserve
      ? parseReserveTerms(reserve.percentBps, reserve.holdDays)
      : null;
    return this.change(em, actor, merchantId, 'merchant.set_reserve', { reserve: terms });
  }

  private change(
    em: EntityManager,
    actor: string,
    merchantId: string,
    action: string,
    change: Parameters<typeof writeMerchantTerms>[2],
  ): Promise<MerchantTermsView> {
    return retryOnConflict(() =>
      em.fork().transactional(async (tx) => {
        if (!(await lockMerchant(tx, merchantId))) {
          throw new DomainError(ErrorCode.NotFound, `No merchant ${merchantId}`);
        }
        const { before, after } = await writeMerchantTerms(
          tx,
          merchantId,
          change,
          this.clock.now(),
        );
        await this.audit.record(tx, {
          actor,
          action,
          targetType: 'merchant',
          targetId: merchantId,
          before: { ...this.view(before) },
          after: { ...this.view(after) },
        });
        return this.view(after);
      }),
    );
  }
}
