/**
 * Small helpers shared by the subscriptions and webhooks benchmarks: pauses, polling, and the
 * merchant REST calls of merchant-api.ts.
 */

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `BENCH_QUICK=1`: shorter phases, for working on a benchmark (not for its figures). */
export const QUICK = process.env.BENCH_QUICK === '1';

// The REST calls are merchant-api's, shared with the settlement and read benchmarks.
export { api, permanentOnramp } from './merchant-api';

/** Polls `check` until true (then true) or the time is up (then false). */
export async function untilTrue(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  everyMs = 100,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await pause(everyMs);
  }
  return true;
}
