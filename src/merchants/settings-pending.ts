import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Merchant } from './merchant.entity';
import {
  isDue,
  namedLeaves,
  pendingView,
  splitPatch,
  storedPendingChanges,
  withDueChanges,
  type PendingChange,
  type StoredPendingChange,
} from '../domain/settings-widening';
import { writeMerchantEvent } from '../events';
import type { AuditLogService } from '../audit';

/**
 * The settings a widening can touch (API.md, "Money leaves only where it should (v0.3)"): a
 * PATCH's leaves under these go through `splitPatch`; any other setting (one that never widens
 * where money goes) applies at once, untouched by this file.
 */
export const GATED_SETTINGS = [
  'require_address_book',
  'underpayment',
  'overpayment',
  'payer_name_check',
  'payer_resolution',
] as const;
export type GatedSetting = (typeof GATED_SETTINGS)[number];

/** The gated part of the settings view, as the service reads and writes it. */
export type GatedSettings = Record<GatedSetting, unknown>;

/** How the settings service reads the stored columns and writes some of them back. */
export interface SettingsColumns {
  /** The stored settings (no pending change folded in). */
  read(merchant: Merchant): GatedSettings;
  /** Writes settings `tops` of `settings` into the merchant's columns. */
  write(merchant: Merchant, settings: GatedSettings, tops: readonly GatedSetting[]): void;
  /** The whole answer (`pending_changes` included) at `now`, for events and the audit. */
  view(merchant: Merchant, now: Date): Record<string, unknown>;
}

const topOf = (field: string) => field.split('.', 1)[0] as GatedSetting;

/** The PATCH's leaves under the gated settings. */
export function gatedLeaves(patch: Record<string, unknown>): string[] {
  return namedLeaves(patch).filter((field) =>
    (GATED_SETTINGS as readonly string[]).includes(topOf(field)),
  );
}

/** What the merchant row says is still waiting at `now`. */
export function pendingChangesOf(merchant: Merchant, now: Date): PendingChange[] {
  return pendingView(storedPendingChanges(merchant.pendingSettings), now);
}

/** The stored settings with every change due at `now` folded in. */
export function effectiveGated(
  columns: SettingsColumns,
  merchant: Merchant,
  now: Date,
): GatedSettings {
  return withDueChanges(
    columns.read(merchant),
    storedPendingChanges(merchant.pendingSettings),
    now,
  );
}

/**
 * Decides a PATCH under the merchant's row lock, after `applyDue`: `requested` is the stored
 * settings with the whole PATCH applied (the service validated and wrote it); widened leaves
 * are put back to the value that applies and queued, the rest stay applied.
 */
export function holdWidenings(
  columns: SettingsColumns,
  merchant: Merchant,
  change: {
    current: GatedSettings;
    fields: readonly string[];
    now: Date;
    delaySeconds: number;
    requestedBy: string;
  },
): void {
  if (change.fields.length === 0) return;
  const { apply, pending } = splitPatch({
    current: change.current,
    requested: columns.read(merchant),
    fields: change.fields,
    pending: storedPendingChanges(merchant.pendingSettings),
    now: change.now,
    delaySeconds: change.delaySeconds,
    requestedBy: change.requestedBy,
  });
  columns.write(merchant, apply, [...new Set(change.fields.map(topOf))]);
  merchant.pendingSettings = pending.length > 0 ? [...pending] : null;
}

/**
 * Folds the changes due at `now` into the merchant's columns, with `merchant.settings_updated`
 * (data: the settings after) and an audit entry in the same transaction. The caller holds the
 * row lock, and the changes leave the row in that transaction, so each effect is announced
 * once whichever runner (or PATCH) gets there first. False when nothing was due.
 */
export async function applyDue(
  tx: EntityManager,
  deps: { columns: SettingsColumns; auditLog: AuditLogService },
  merchant: Merchant,
  now: Date,
): Promise<boolean> {
  const stored = storedPendingChanges(merchant.pendingSettings);
  const due = stored.filter((change) => isDue(change, now));
  if (due.length === 0) return false;
  // Just before the effect: the old values, every change still shown as waiting.
  const before = { ...deps.columns.view(merchant, new Date(0)) };
  const waiting = stored.filter((change) => !isDue(change, now));
  deps.columns.write(merchant, withDueChanges(deps.columns.read(merchant), due, now), [
    ...new Set(due.map((change) => topOf(change.field))),
  ]);
  merchant.pendingSettings = waiting.length > 0 ? [...waiting] : null;
  merchant.updatedAt = now;
  await tx.flush();
  const after = { ...deps.columns.view(merchant, now) };
  await writeMerchantEvent(tx, {
    kind: 'merchant.settings_updated',
    merchantId: merchant.id,
    data: after,
    createdAt: now,
  });
  await deps.auditLog.record(tx, {
    actor: requesters(due),
    action: 'merchant.settings_effect',
    targetType: 'merchant',
    targetId: merchant.id,
    before,
    after: {
      ...after,
      applied: due.map(({ field, value, requested_at }) => ({ field, value, requested_at })),
    },
  });
  return true;
}

/** The credential(s) that asked for the changes now taking effect. */
function requesters(due: readonly StoredPendingChange[]): string {
  return [...new Set(due.map((change) => change.requested_by))].join(',');
}

/**
 * The job's pass: merchants with a change due at `now` (found without a lock, then each
 * locked in its own transaction and checked again, skipping a row another runner holds).
 */
export async function applyDueChanges(
  em: EntityManager,
  deps: { columns: SettingsColumns; auditLog: AuditLogService },
  now: Date,
  limit: number,
): Promise<number> {
  const candidates = await em.getConnection().execute<{ id: string }[]>(
    `select id from merchants
      where pending_settings is not null
        and exists (select 1 from jsonb_array_elements(pending_settings) change
                     where (change->>'effective_at')::timestamptz <= ?)
      order by id limit ?`,
    [now, limit],
  );
  let applied = 0;
  for (const { id } of candidates) {
    const done = await em.fork().transactional(async (tx) => {
      const merchant = await tx.findOne(
        Merchant,
        { id },
        { lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE },
      );
      return merchant ? applyDue(tx, deps, merchant, now) : false;
    });
    if (done) applied += 1;
  }
  return applied;
}
