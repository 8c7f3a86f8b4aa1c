import { dec } from './money';

/**
 * Which settings changes widen where money can go or who may settle a FLAGGED deposit (API.md,
 * "Money leaves only where it should (v0.3)"), decided per leaf of the settings object. A
 * widening waits WITHDRAWAL_ADDRESS_DELAY_SECONDS as a pending change; anything else (a
 * tightening, or no change) applies at once. Pure: the service reads and writes the rows.
 *
 * A leaf is named by its dotted path in the REST settings object (`require_address_book`,
 * `underpayment.tolerance_ngn`, `payer_resolution.allow_settle`...): that name is the `field`
 * of a pending change on every transport.
 */

/** A leaf's value as the settings answer shows it. */
export type LeafValue = boolean | string | number;

/** A change waiting for its delay, as the settings answer shows it. */
export interface PendingChange {
  field: string;
  value: LeafValue;
  effective_at: string;
}

/** As stored (merchants.pending_settings): who asked and when, for the audit at the effect. */
export interface StoredPendingChange extends PendingChange {
  requested_at: string;
  requested_by: string;
}

const ACTION_LEAVES = ['underpayment.action', 'overpayment.action'];
const TOLERANCE_NGN_LEAVES = ['underpayment.tolerance_ngn', 'overpayment.tolerance_ngn'];
const TOLERANCE_BPS_LEAVES = ['underpayment.tolerance_bps', 'overpayment.tolerance_bps'];

/**
 * True when moving leaf `field` from `from` to `to` lets more money be kept, settled without
 * review, or sent somewhere new:
 * - `require_address_book` true -> false (withdrawals to any address);
 * - a tolerance raised (more deposits within it, settled without review);
 * - an amount rule's action to `accept` from `flag` or `return` (a deposit that breaks the
 *   rule settles without review); `flag` <-> `return` is not: both keep it from settling;
 * - `payer_name_check.enabled` true -> false (a stranger's payment settles); its `action` is
 *   `flag` or `return`, both of which stop the deposit, so never a widening;
 * - `payer_resolution.allow_settle` false -> true (the payer may settle a FLAGGED deposit).
 * An unknown leaf is treated as widening: a new setting must be decided here, not let through.
 */
export function isWidening(field: string, from: LeafValue, to: LeafValue): boolean {
  if (from === to) return false;
  if (field === 'require_address_book' || field === 'payer_name_check.enabled') {
    return from === true && to === false;
  }
  if (field === 'payer_resolution.allow_settle') return from === false && to === true;
  if (field === 'payer_name_check.action') return false;
  if (ACTION_LEAVES.includes(field)) return to === 'accept';
  if (TOLERANCE_NGN_LEAVES.includes(field)) return dec(String(to)).gt(dec(String(from)));
  if (TOLERANCE_BPS_LEAVES.includes(field)) return Number(to) > Number(from);
  return true;
}

/** Any settings object: the view, or a part of it such as the payment rules. */
type SettingsShape = object;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The leaf at `field` of `settings`, undefined when the path is absent. */
export function leafOf(settings: SettingsShape, field: string): unknown {
  const [top, leaf] = field.split('.', 2);
  const value = (settings as Record<string, unknown>)[top];
  if (leaf === undefined) return value;
  return isObject(value) ? value[leaf] : undefined;
}

/** `settings` with leaf `field` set to `value`; a path `settings` lacks is left alone. */
export function withLeaf<T extends SettingsShape>(settings: T, field: string, value: unknown): T {
  const [top, leaf] = field.split('.', 2);
  if (!(top in settings)) return settings;
  if (leaf === undefined) return { ...settings, [top]: value };
  const parent = (settings as Record<string, unknown>)[top];
  if (!isObject(parent)) return settings;
  return { ...settings, [top]: { ...parent, [leaf]: value } };
}

/**
 * The leaves a PATCH body names (after validation, so every key is a known one): a setting
 * given as an object names each of its keys; a scalar names itself.
 */
export function namedLeaves(patch: Record<string, unknown>): string[] {
  const fields: string[] = [];
  for (const [top, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (isObject(value)) for (const leaf of Object.keys(value)) fields.push(`${top}.${leaf}`);
    else fields.push(top);
  }
  return fields;
}

/** The stored column (jsonb array, null when none) read defensively. */
export function storedPendingChanges(stored: unknown): StoredPendingChange[] {
  if (!Array.isArray(stored)) return [];
  return stored.filter(
    (entry): entry is StoredPendingChange =>
      isObject(entry) && typeof entry.field === 'string' && typeof entry.effective_at === 'string',
  );
}

export function isDue(change: PendingChange, now: Date): boolean {
  return Date.parse(change.effective_at) <= now.getTime();
}

/** `settings` as they apply at `now`: every due change folded in, in request order. */
export function withDueChanges<T extends SettingsShape>(
  settings: T,
  pending: readonly StoredPendingChange[],
  now: Date,
): T {
  return pending
    .filter((change) => isDue(change, now))
    .reduce((acc, change) => withLeaf(acc, change.field, change.value), settings);
}

/** The value a due change gives leaf `field` at `now`, or undefined when none is due. */
export function dueValue(stored: unknown, field: string, now: Date): LeafValue | undefined {
  const due = storedPendingChanges(stored).filter((c) => c.field === field && isDue(c, now));
  return due.length > 0 ? due[due.length - 1].value : undefined;
}

/** What the settings answer shows: the changes still waiting at `now`, soonest first. */
export function pendingView(pending: readonly StoredPendingChange[], now: Date): PendingChange[] {
  return pending
    .filter((change) => !isDue(change, now))
    .sort((a, b) => a.effective_at.localeCompare(b.effective_at) || a.field.localeCompare(b.field))
    .map(({ field, value, effective_at }) => ({ field, value, effective_at }));
}

export interface SplitRequest<T extends SettingsShape> {
  /** The settings as they apply now (due changes folded in). */
  current: T;
  /** `current` with the whole PATCH merged in (validated). */
  requested: T;
  /** The leaves the PATCH names. */
  fields: readonly string[];
  /** The changes still waiting (none of them due). */
  pending: readonly StoredPendingChange[];
  now: Date;
  delaySeconds: number;
  requestedBy: string;
}

/**
 * Splits a PATCH: a named leaf that widens becomes a pending change (a second widening of the
 * same leaf replaces the first and restarts the delay, unless it asks for the same value, so a
 * retried PATCH does not push the effect back); a named leaf that does not widen applies now
 * and cancels a pending change of that leaf (asking for the value that applies is how a
 * merchant cancels one).
 */
export function splitPatch<T extends SettingsShape>(
  request: SplitRequest<T>,
): { apply: T; pending: StoredPendingChange[] } {
  const { current, requested, fields, now } = request;
  let apply = current;
  let pending = [...request.pending];
  for (const field of fields) {
    const from = leafOf(current, field) as LeafValue;
    const to = leafOf(requested, field) as LeafValue;
    const waiting = pending.find((change) => change.field === field);
    pending = pending.filter((change) => change.field !== field);
    if (!isWidening(field, from, to)) {
      apply = withLeaf(apply, field, to);
    } else if (waiting && waiting.value === to) {
      pending.push(waiting);
    } else {
      pending.push({
        field,
        value: to,
        effective_at: new Date(now.getTime() + request.delaySeconds * 1000).toISOString(),
        requested_at: now.toISOString(),
        requested_by: request.requestedBy,
      });
    }
  }
  return { apply, pending };
}
