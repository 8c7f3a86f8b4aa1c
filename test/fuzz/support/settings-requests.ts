import fc from 'fast-check';
import {
  isWidening,
  leafOf,
  namedLeaves,
  type LeafValue,
} from '../../../src/domain/settings-widening';
import { isObject, type Violation } from './oracle';

/**
 * The merchant settings with pending_changes (issue 32): valid PATCHes over every gated leaf,
 * widening and tightening in any mix, and the invariants every answer keeps. Whatever a
 * request asked, a change shown under `pending_changes` is a widening of the value shown (the
 * setting keeps its old value until `effective_at`), one per field.
 */

export const GATED_FIELDS = [
  'require_address_book',
  'underpayment.tolerance_ngn',
  'underpayment.tolerance_bps',
  'underpayment.action',
  'overpayment.tolerance_ngn',
  'overpayment.tolerance_bps',
  'overpayment.action',
  'payer_name_check.enabled',
  'payer_name_check.action',
  'payer_resolution.allow_settle',
] as const;

type Settings = Record<string, unknown> & {
  pending_changes: Array<{ field: string; value: LeafValue; effective_at: string }>;
};

const tolerance = fc.constantFrom('0.00', '0.01', '5.00', '100.00', '99999.99');
const bps = fc.constantFrom(0, 1, 50, 10_000);
const amountRule = fc.record(
  {
    tolerance_ngn: tolerance,
    tolerance_bps: bps,
    action: fc.constantFrom('accept', 'flag', 'return'),
  },
  { requiredKeys: [] },
);

/** A valid settings PATCH: any subset of the gated leaves, values on both sides of each. */
export const settingsPatch: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    require_address_book: fc.boolean(),
    underpayment: amountRule,
    overpayment: amountRule,
    payer_name_check: fc.record(
      { enabled: fc.boolean(), action: fc.constantFrom('flag', 'return') },
      { requiredKeys: [] },
    ),
    payer_resolution: fc.record({ allow_settle: fc.boolean() }, { requiredKeys: [] }),
  },
  { requiredKeys: [] },
);

/** The same PATCH as `updateMerchantSettings`'s input. */
export function graphqlInput(patch: Record<string, unknown>): Record<string, unknown> {
  const rule = (raw: unknown) => {
    if (!isObject(raw)) return undefined;
    return {
      toleranceNgn: raw.tolerance_ngn,
      toleranceBps: raw.tolerance_bps,
      action: typeof raw.action === 'string' ? raw.action.toUpperCase() : undefined,
    };
  };
  const nameCheck = patch.payer_name_check as Record<string, unknown> | undefined;
  const resolution = patch.payer_resolution as Record<string, unknown> | undefined;
  return JSON.parse(
    JSON.stringify({
      requireAddressBook: patch.require_address_book,
      underpayment: rule(patch.underpayment),
      overpayment: rule(patch.overpayment),
      payerNameCheck: nameCheck && {
        enabled: nameCheck.enabled,
        action: typeof nameCheck.action === 'string' ? nameCheck.action.toUpperCase() : undefined,
      },
      payerResolution: resolution && { allowSettle: resolution.allow_settle },
    }),
  ) as Record<string, unknown>;
}

export const GRAPHQL_SETTINGS_FIELDS = `requireAddressBook
  underpayment { toleranceNgn toleranceBps action }
  overpayment { toleranceNgn toleranceBps action }
  payerNameCheck { enabled action }
  payerResolution { allowSettle }
  pendingChanges { field value effectiveAt }`;

/** A GraphQL MerchantSettings (selected as above) in REST's shape. */
export function fromGraphql(node: Record<string, unknown>): Settings {
  const rule = (raw: unknown) => {
    const r = raw as Record<string, unknown>;
    return {
      tolerance_ngn: r.toleranceNgn,
      tolerance_bps: r.toleranceBps,
      action: String(r.action).toLowerCase(),
    };
  };
  const nameCheck = node.payerNameCheck as Record<string, unknown>;
  const changes = node.pendingChanges as Array<Record<string, unknown>>;
  return {
    require_address_book: node.requireAddressBook,
    underpayment: rule(node.underpayment),
    overpayment: rule(node.overpayment),
    payer_name_check: {
      enabled: nameCheck.enabled,
      action: String(nameCheck.action).toLowerCase(),
    },
    payer_resolution: {
      allow_settle: (node.payerResolution as Record<string, unknown>).allowSettle,
    },
    pending_changes: changes.map((c) => ({
      field: c.field as string,
      value: c.value as LeafValue,
      effective_at: new Date(c.effectiveAt as string).toISOString(),
    })),
  };
}

/** The settings this file knows (other settings may sit next to them). */
export function gatedPart(settings: Record<string, unknown>): Record<string, unknown> {
  const tops = [...new Set(GATED_FIELDS.map((f) => f.split('.')[0])), 'pending_changes'];
  return Object.fromEntries(tops.map((top) => [top, settings[top]]));
}

/** What every settings answer keeps, whatever was asked before it. */
export function settingsAnswerViolations(body: unknown): Violation[] {
  if (!isObject(body)) return [];
  const rule = 'pending-changes';
  if (!Array.isArray(body.pending_changes)) {
    return [{ rule, detail: `no pending_changes list: ${JSON.stringify(body).slice(0, 200)}` }];
  }
  const violations: Violation[] = [];
  const seen = new Set<string>();
  for (const change of body.pending_changes as unknown[]) {
    if (!isObject(change) || typeof change.field !== 'string') {
      violations.push({ rule, detail: `malformed ${JSON.stringify(change)}` });
      continue;
    }
    const { field, value } = change;
    if (!(GATED_FIELDS as readonly string[]).includes(field)) {
      violations.push({ rule, detail: `unknown field ${field}` });
    }
    if (seen.has(field)) violations.push({ rule, detail: `${field} pending twice` });
    seen.add(field);
    if (Number.isNaN(Date.parse(String(change.effective_at)))) {
      violations.push({ rule, detail: `${field}: effective_at ${String(change.effective_at)}` });
    }
    const shown = leafOf(body, field) as LeafValue;
    if (!isWidening(field, shown, value as LeafValue)) {
      violations.push({
        rule,
        detail: `${field} pending ${JSON.stringify(value)} is not a widening of the shown ${JSON.stringify(shown)}`,
      });
    }
  }
  return violations;
}

/**
 * One PATCH against the settings before it (nothing else changing them meanwhile, no pending
 * change due): each named leaf that widens waits (`delaySeconds` from the request), the others
 * apply now and cancel a waiting one; the leaves not named keep their values and their waits.
 */
export function settingsStepViolations(step: {
  before: Settings;
  patch: Record<string, unknown>;
  after: Settings;
  sentAt: number;
  answeredAt: number;
  delaySeconds: number;
}): Violation[] {
  const { before, patch, after } = step;
  const violations: Violation[] = [...settingsAnswerViolations(after)];
  const rule = 'settings-step';
  const pendingIn = (s: Settings, field: string) =>
    s.pending_changes.find((c) => c.field === field);
  const named = new Set(namedLeaves(patch));
  for (const field of GATED_FIELDS) {
    const was = leafOf(before, field) as LeafValue;
    const now = leafOf(after, field);
    const waiting = pendingIn(after, field);
    const detail = (what: string) => `${field}: ${what} (patch ${JSON.stringify(patch)})`;
    if (!named.has(field)) {
      if (now !== was)
        violations.push({ rule, detail: detail(`changed ${String(was)} -> ${String(now)}`) });
      if (JSON.stringify(waiting) !== JSON.stringify(pendingIn(before, field))) {
        violations.push({ rule, detail: detail('its pending change moved') });
      }
      continue;
    }
    const asked = leafOf(patch, field) as LeafValue;
    const askedNormal = field.endsWith('tolerance_ngn') ? Number(asked).toFixed(2) : asked;
    if (isWidening(field, was, askedNormal)) {
      if (now !== was) violations.push({ rule, detail: detail('a widening applied at once') });
      if (!waiting || waiting.value !== askedNormal) {
        violations.push({ rule, detail: detail(`not pending: ${JSON.stringify(waiting)}`) });
        continue;
      }
      const at = Date.parse(waiting.effective_at);
      const previous = pendingIn(before, field);
      const kept = previous && previous.value === askedNormal;
      if (kept && previous.effective_at !== waiting.effective_at) {
        violations.push({ rule, detail: detail('the same widening again moved its effective_at') });
      }
      if (
        !kept &&
        (at < step.sentAt + step.delaySeconds * 1000 - 1000 ||
          at > step.answeredAt + step.delaySeconds * 1000 + 1000)
      ) {
        violations.push({
          rule,
          detail: detail(`effective_at ${waiting.effective_at} is not the delay away`),
        });
      }
    } else {
      if (now !== askedNormal)
        violations.push({ rule, detail: detail(`not applied: ${String(now)}`) });
      if (waiting) violations.push({ rule, detail: detail('a tightening left a pending change') });
    }
  }
  return violations;
}
