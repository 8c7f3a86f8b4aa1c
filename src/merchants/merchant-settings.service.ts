import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { Merchant } from './merchant.entity';
import { DomainError, ErrorCode, invalidParameter } from '../domain/errors';
import { addressBookRequired } from '../domain/withdrawal-addresses';
import {
  paymentRulesOf,
  parseAmountRule,
  parseNameCheck,
  type AmountRule,
  type PayerNameCheck,
} from '../domain/payment-rules';
import {
  parsePayerResolution,
  storedPayerResolution,
  type PayerResolutionSetting,
} from '../domain/payer-resolution';
import { parseAllowedOrigins } from '../domain/allowed-origins';
import { writeMerchantEvent } from '../events';
import type { AuditLogService } from '../audit';
import type { PendingChange } from '../domain/settings-widening';
import {
  applyDue,
  applyDueChanges,
  effectiveGated,
  gatedLeaves,
  holdWidenings,
  pendingChangesOf,
  type GatedSetting,
  type GatedSettings,
  type SettingsColumns,
} from './settings-pending';

/**
 * The merchant's settings as the API shows them: effective values (a setting never set shows
 * the deployment's default). Issue 22 adds `underpayment`, `overpayment`, `payer_name_check`:
 * each is a field here, a column read in `settingsOf` and a case in `applyPatch`.
 */
export interface MerchantSettingsView {
  require_address_book: boolean;
  underpayment: AmountRule;
  overpayment: AmountRule;
  payer_name_check: PayerNameCheck;
  /** Browser origins whose pages may use client secrets (issue 32); not a widening change. */
  allowed_origins: string[];
  payer_resolution: PayerResolutionSetting;
  /** Widenings waiting for WITHDRAWAL_ADDRESS_DELAY_SECONDS (issue 32); [] when none. */
  pending_changes: PendingChange[];
}

/**
 * A PATCH body: only the fields named change (inside a rule too: `{underpayment: {action}}`
 * keeps its tolerances); unknown fields are refused at the edge.
 */
export interface MerchantSettingsPatch {
  require_address_book?: unknown;
  underpayment?: unknown;
  overpayment?: unknown;
  payer_name_check?: unknown;
  allowed_origins?: unknown;
  payer_resolution?: unknown;
}

/** Who changes them: recorded in the audit log as `api_key:<id>`. */
export interface SettingsActor {
  merchantId: string;
  keyId: string;
}

/**
 * Reads and changes a merchant's own settings. A change that alters what applies writes
 * `merchant.settings_updated` (data: the settings after) and an audit entry in the same
 * transaction, so a merchant hears of it even when the change was made with a leaked key.
 */
export class MerchantSettingsService {
  constructor(
    private readonly clock: Clock,
    private readonly auditLog: AuditLogService,
    private readonly sandbox: boolean,
    /** WITHDRAWAL_ADDRESS_DELAY_SECONDS: how long a widening waits. */
    private readonly delaySeconds: number,
  ) {}

  /** The stored columns as settings-pending reads and writes them. */
  private readonly columns: SettingsColumns = {
    read: (merchant) => this.storedSettingsOf(merchant),
    write: (merchant, settings, tops) => applyPatch(merchant, gatedPatch(settings, tops)),
    view: (merchant, now) => ({ ...this.settingsOf(merchant, now) }),
  };

  async get(em: EntityManager, merchantId: string): Promise<MerchantSettingsView> {
    const merchant = await em.findOne(Merchant, { id: merchantId });
    if (!merchant) throw new DomainError(ErrorCode.NotFound, `No merchant ${merchantId}`);
    return this.settingsOf(merchant, this.clock.now());
  }

  /** The job's pass: widenings whose delay has passed take effect (announced once each). */
  async applyDueChanges(em: EntityManager, limit = 100): Promise<number> {
    const deps = { columns: this.columns, auditLog: this.auditLog };
    return applyDueChanges(em.fork(), deps, this.clock.now(), limit);
  }

  async update(
    em: EntityManager,
    actor: SettingsActor,
    patch: MerchantSettingsPatch,
  ): Promise<MerchantSettingsView> {
    return em.fork().transactional(async (tx) => {
      const merchant = await tx.findOneOrFail(
        Merchant,
        { id: actor.merchantId },
        { lockMode: LockMode.PESSIMISTIC_WRITE },
      );
      const now = this.clock.now();
      // A change already due is applied (and announced) first, so `before` is what applies.
      await applyDue(tx, { columns: this.columns, auditLog: this.auditLog }, merchant, now);
      const before = this.settingsOf(merchant, now);
      const current = effectiveGated(this.columns, merchant, now);
      // Rules merge into the current ones, read under the lock; widenings then wait.
      applyPatch(merchant, validatePatch(patch, before, this.sandbox));
      holdWidenings(this.columns, merchant, {
        current,
        fields: gatedLeaves(patch as Record<string, unknown>),
        now,
        delaySeconds: this.delaySeconds,
        requestedBy: `api_key:${actor.keyId}`,
      });
      const after = this.settingsOf(merchant, now);
      merchant.updatedAt = now;
      await tx.flush();
      if (JSON.stringify(before) !== JSON.stringify(after)) {
        await writeMerchantEvent(tx, {
          kind: 'merchant.settings_updated',
          merchantId: actor.merchantId,
          data: { ...after },
          createdAt: now,
        });
        await this.auditLog.record(tx, {
          actor: `api_key:${actor.keyId}`,
          action: 'merchant.settings_update',
          targetType: 'merchant',
          targetId: actor.merchantId,
          before: { ...before },
          after: { ...after },
        });
      }
      return after;
    });
  }

  /** What applies at `now`: the stored values with every due change folded in. */
  private settingsOf(merchant: Merchant, now: Date): MerchantSettingsView {
    return {
      ...this.storedSettingsOf(merchant),
      ...(effectiveGated(this.columns, merchant, now) as Pick<MerchantSettingsView, GatedSetting>),
      pending_changes: pendingChangesOf(merchant, now),
    };
  }

  private storedSettingsOf(merchant: Merchant): Omit<MerchantSettingsView, 'pending_changes'> {
    return {
      require_address_book: addressBookRequired(merchant.requireAddressBook, this.sandbox),
      ...paymentRulesOf({
        underpayment: merchant.underpayment,
        overpayment: merchant.overpayment,
        payer_name_check: merchant.payerNameCheck,
      }),
      allowed_origins: [...merchant.allowedOrigins],
      payer_resolution: storedPayerResolution(merchant.payerResolution),
    };
  }
}

interface ValidPatch {
  requireAddressBook?: boolean;
  underpayment?: AmountRule;
  overpayment?: AmountRule;
  payerNameCheck?: PayerNameCheck;
  allowedOrigins?: string[];
  payerResolution?: PayerResolutionSetting;
}

function validatePatch(
  patch: MerchantSettingsPatch,
  current: MerchantSettingsView,
  sandbox: boolean,
): ValidPatch {
  const valid: ValidPatch = {};
  if (patch.underpayment !== undefined) {
    valid.underpayment = parseAmountRule('underpayment', patch.underpayment, current.underpayment);
  }
  if (patch.overpayment !== undefined) {
    valid.overpayment = parseAmountRule('overpayment', patch.overpayment, current.overpayment);
  }
  if (patch.payer_name_check !== undefined) {
    valid.payerNameCheck = parseNameCheck(patch.payer_name_check, current.payer_name_check);
  }
  if (patch.allowed_origins !== undefined) {
    valid.allowedOrigins = parseAllowedOrigins(patch.allowed_origins, sandbox);
  }
  if (patch.payer_resolution !== undefined) {
    valid.payerResolution = parsePayerResolution(patch.payer_resolution, current.payer_resolution);
  }
  if (patch.require_address_book !== undefined) {
    if (typeof patch.require_address_book !== 'boolean') {
      throw invalidParameter('require_address_book', 'must be true or false');
    }
    valid.requireAddressBook = patch.require_address_book;
  }
  return valid;
}

/** The gated settings `tops` of `settings` as a patch of their columns. */
function gatedPatch(settings: GatedSettings, tops: readonly GatedSetting[]): ValidPatch {
  const view = settings as Pick<MerchantSettingsView, GatedSetting>;
  const named = (top: GatedSetting) => tops.includes(top);
  return {
    requireAddressBook: named('require_address_book') ? view.require_address_book : undefined,
    underpayment: named('underpayment') ? view.underpayment : undefined,
    overpayment: named('overpayment') ? view.overpayment : undefined,
    payerNameCheck: named('payer_name_check') ? view.payer_name_check : undefined,
    payerResolution: named('payer_resolution') ? view.payer_resolution : undefined,
  };
}

function applyPatch(merchant: Merchant, patch: ValidPatch): void {
  if (patch.requireAddressBook !== undefined)
    merchant.requireAddressBook = patch.requireAddressBook;
  if (patch.underpayment) merchant.underpayment = { ...patch.underpayment };
  if (patch.overpayment) merchant.overpayment = { ...patch.overpayment };
  if (patch.payerNameCheck) merchant.payerNameCheck = { ...patch.payerNameCheck };
  if (patch.allowedOrigins) merchant.allowedOrigins = [...patch.allowedOrigins];
  if (patch.payerResolution) merchant.payerResolution = { ...patch.payerResolution };
}
