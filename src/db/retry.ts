import { classifyPgFailure, isLostRace } from './pg-failures';

/**
 * Whether the error says "another transaction won a race; running again will succeed"
 * (pg-failures.ts decides: serialization failure, deadlock, exclusion violation). Retried
 * here instead of reaching a client as an error.
 */
export function isRetryableConflict(error: unknown): boolean {
  return isLostRace(classifyPgFailure(error));
}

/**
 * Runs a whole transaction again when it lost a race, up to `attempts` times in all. Each
 * rerun waits a few random milliseconds first: transactions that deadlocked together and
 * rerun at once tend to meet again in the same order (seen with 15 transfers racing for one
 * day's totals on a loaded machine, all five attempts lost).
 */
export async function retryOnConflict<T>(run: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= attempts || !isRetryableConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}
