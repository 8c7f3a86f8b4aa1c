/**
 * The webhook retry schedule (docs/api.md, "Webhooks"): the first attempt at once, then at most 10 retries with
 * exponential backoff and jitter, the first about 5 s after the first attempt and the last
 * about 24 h after it. Retry k is planned at `offset(k)` after the first attempt, where the
 * offsets grow geometrically from 5 s to 24 h; jitter moves each retry within ±10% of the gap
 * since the previous planned retry, so the plan stays ordered and the last stays near 24 h.
 */
export const MAX_RETRIES = 10;
export const MAX_ATTEMPTS = MAX_RETRIES + 1;
const FIRST_RETRY_MS = 5_000;
const LAST_RETRY_MS = 24 * 60 * 60 * 1000;
export const JITTER = 0.1;

/** Sum of the first k gaps for growth factor r: 5 s * (r^k - 1) / (r - 1). */
function offsetFor(growth: number, k: number): number {
  return (FIRST_RETRY_MS * (growth ** k - 1)) / (growth - 1);
}

/** The growth factor that puts retry 10 at exactly 24 h (bisection; about 2.8). */
function solveGrowth(): number {
  let low = 1.0001;
  let high = 10;
  for (let i = 0; i < 200; i += 1) {
    const mid = (low + high) / 2;
    if (offsetFor(mid, MAX_RETRIES) < LAST_RETRY_MS) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

const GROWTH = solveGrowth();

/** Milliseconds after the first attempt at which retry k (1..10) is planned, before jitter. */
export function plannedRetryOffsetMs(k: number): number {
  if (!Number.isInteger(k) || k < 1 || k > MAX_RETRIES) {
    throw new RangeError(`retry number must be 1..${MAX_RETRIES}, got ${k}`);
  }
  return Math.round(offsetFor(GROWTH, k));
}

/**
 * When to make the next attempt after `attemptsMade` attempts failed (1 = only the first), or
 * null when none is left. `random` is in [0, 1); never before `notBefore` (an attempt that
 * timed out may end after the next one was planned).
 */
export function nextAttemptAt(
  firstAttemptAt: Date,
  attemptsMade: number,
  notBefore: Date,
  random: () => number,
): Date | null {
  if (attemptsMade >= MAX_ATTEMPTS) return null;
  const k = attemptsMade;
  const previous = k === 1 ? 0 : plannedRetryOffsetMs(k - 1);
  const gap = plannedRetryOffsetMs(k) - previous;
  const jittered = previous + gap * (1 + JITTER * (2 * random() - 1));
  const at = firstAttemptAt.getTime() + Math.round(jittered);
  return new Date(Math.max(at, notBefore.getTime()));
}
