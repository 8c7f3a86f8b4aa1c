import {
  dueValue,
  isWidening,
  namedLeaves,
  pendingView,
  splitPatch,
  withDueChanges,
  type StoredPendingChange,
} from '../../src/domain/settings-widening';
import { seededRandom, testSeed } from '../support/seeded-random';

const DEFAULTS = {
  require_address_book: true,
  underpayment: { tolerance_ngn: '0.00', tolerance_bps: 0, action: 'flag' },
  overpayment: { tolerance_ngn: '10.00', tolerance_bps: 50, action: 'return' },
  payer_name_check: { enabled: true, action: 'flag' },
  payer_resolution: { allow_settle: false },
};
type Settings = typeof DEFAULTS;
const NOW = new Date('2026-11-28T12:00:00.000Z');
const DELAY = 60;
const LATER = '2026-11-28T12:01:00.000Z';

function split(patch: Record<string, unknown>, pending: StoredPendingChange[] = []) {
  let requested: Settings = { ...DEFAULTS };
  for (const [top, value] of Object.entries(patch)) {
    const current = (DEFAULTS as Record<string, unknown>)[top];
    requested = {
      ...requested,
      [top]: typeof value === 'object' ? { ...(current as object), ...value } : value,
    };
  }
  return splitPatch({
    current: DEFAULTS,
    requested,
    fields: namedLeaves(patch),
    pending,
    now: NOW,
    delaySeconds: DELAY,
    requestedBy: 'api_key:key_1',
  });
}

describe('which settings changes widen (issue 32)', () => {
  it.each([
    ['require_address_book', true, false, true],
    ['require_address_book', false, true, false],
    ['underpayment.tolerance_ngn', '10.00', '10.01', true],
    ['underpayment.tolerance_ngn', '10.00', '9.99', false],
    ['underpayment.tolerance_ngn', '9.00', '10.00', true], // decimals, not text order
    ['overpayment.tolerance_bps', 50, 51, true],
    ['overpayment.tolerance_bps', 50, 0, false],
    ['underpayment.action', 'flag', 'accept', true],
    ['overpayment.action', 'return', 'accept', true],
    ['underpayment.action', 'accept', 'flag', false],
    ['underpayment.action', 'flag', 'return', false],
    ['underpayment.action', 'return', 'flag', false],
    ['payer_name_check.enabled', true, false, true],
    ['payer_name_check.enabled', false, true, false],
    ['payer_name_check.action', 'return', 'flag', false],
    ['payer_resolution.allow_settle', false, true, true],
    ['payer_resolution.allow_settle', true, false, false],
    ['require_address_book', true, true, false],
    ['some_future_setting', 'a', 'b', true], // undecided: held, never let through
  ])('%s %p -> %p widens: %p', (field, from, to, widens) => {
    expect(isWidening(field, from, to)).toBe(widens);
  });

  it('names the leaves a PATCH touches by dotted path', () => {
    expect(
      namedLeaves({
        require_address_book: false,
        underpayment: { tolerance_ngn: '1.00', action: 'accept' },
        payer_resolution: {},
        overpayment: undefined,
      }),
    ).toEqual(['require_address_book', 'underpayment.tolerance_ngn', 'underpayment.action']);
  });

  it('applies a tightening now and queues a widening of the same PATCH', () => {
    const { apply, pending } = split({
      require_address_book: false,
      underpayment: { tolerance_ngn: '5.00', action: 'return' },
      overpayment: { tolerance_bps: 10 },
    });
    expect(apply).toEqual({
      ...DEFAULTS,
      underpayment: { tolerance_ngn: '0.00', tolerance_bps: 0, action: 'return' },
      overpayment: { tolerance_ngn: '10.00', tolerance_bps: 10, action: 'return' },
    });
    expect(pending).toEqual([
      {
        field: 'require_address_book',
        value: false,
        effective_at: LATER,
        requested_at: NOW.toISOString(),
        requested_by: 'api_key:key_1',
      },
      expect.objectContaining({ field: 'underpayment.tolerance_ngn', value: '5.00' }),
    ]);
  });

  it('cancels a pending widening on a tightening or on the value that applies', () => {
    const waiting = split({ payer_resolution: { allow_settle: true } }).pending;
    expect(waiting).toHaveLength(1);
    const back = split({ payer_resolution: { allow_settle: false } }, waiting);
    expect(back.pending).toEqual([]);
    expect(back.apply.payer_resolution).toEqual({ allow_settle: false });
    // Another leaf's PATCH leaves it alone.
    expect(split({ require_address_book: true }, waiting).pending).toEqual(waiting);
  });

  it('a second widening replaces the first and restarts the delay; the same one keeps it', () => {
    const first = split({ underpayment: { tolerance_ngn: '50.00' } }).pending;
    const earlier = [{ ...first[0], effective_at: '2026-11-28T11:59:30.000Z' }];
    expect(split({ underpayment: { tolerance_ngn: '50.00' } }, earlier).pending).toEqual(earlier);
    expect(split({ underpayment: { tolerance_ngn: '40.00' } }, earlier).pending).toEqual([
      expect.objectContaining({ value: '40.00', effective_at: LATER }),
    ]);
  });

  it('folds only due changes in, and shows only the ones still waiting', () => {
    const pending: StoredPendingChange[] = [
      {
        field: 'require_address_book',
        value: false,
        effective_at: NOW.toISOString(),
        requested_at: '',
        requested_by: 'api_key:key_1',
      },
      {
        field: 'underpayment.tolerance_bps',
        value: 200,
        effective_at: LATER,
        requested_at: '',
        requested_by: 'api_key:key_1',
      },
    ];
    const before = new Date(NOW.getTime() - 1);
    expect(withDueChanges(DEFAULTS, pending, before)).toEqual(DEFAULTS);
    expect(withDueChanges(DEFAULTS, pending, NOW)).toEqual({
      ...DEFAULTS,
      require_address_book: false,
    });
    expect(dueValue(pending, 'require_address_book', before)).toBeUndefined();
    expect(dueValue(pending, 'require_address_book', NOW)).toBe(false);
    expect(pendingView(pending, NOW)).toEqual([
      { field: 'underpayment.tolerance_bps', value: 200, effective_at: LATER },
    ]);
    // A part of the settings (the payment rules alone) takes only its own leaves.
    const rules = { underpayment: DEFAULTS.underpayment };
    expect(withDueChanges(rules, pending, new Date(LATER))).toEqual({
      underpayment: { ...DEFAULTS.underpayment, tolerance_bps: 200 },
    });
  });

  it('never lets a widening of a seeded random PATCH apply before its delay', () => {
    const seed = testSeed();
    const random = seededRandom(seed);
    const pick = <T>(values: readonly T[]): T => random.pick(values);
    process.stdout.write(`settings-widening seed ${seed}\n`);
    for (let i = 0; i < 500; i += 1) {
      const patch = {
        require_address_book: pick([true, false, undefined]),
        underpayment: pick([
          undefined,
          { tolerance_ngn: pick(['0.00', '5.00']), action: pick(['accept', 'flag', 'return']) },
        ]),
        payer_name_check: pick([undefined, { enabled: pick([true, false]) }]),
        payer_resolution: pick([undefined, { allow_settle: pick([true, false]) }]),
      };
      const { apply, pending } = split(patch);
      for (const field of namedLeaves(patch)) {
        const [top, leaf] = field.split('.');
        const read = (s: Record<string, unknown>) =>
          leaf ? (s[top] as Record<string, unknown>)[leaf] : s[top];
        const applied = read(apply);
        const was = read(DEFAULTS);
        // Whatever applies now is never wider than before.
        expect(isWidening(field, was as never, applied as never)).toBe(false);
        const queued = pending.find((c) => c.field === field);
        if (queued) expect(queued.effective_at).toBe(LATER);
      }
    }
  });
});
