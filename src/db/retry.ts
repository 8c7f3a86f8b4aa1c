/**
 * SQLSTATEs that mean "another transaction won a race; running again will succeed":
 * exclusion violation (a virtual account picked by two allocations at once), serialization
 * failure and deadlock. Retried here, once, instead of reaching a client as a 500.
 */
const RETRYABLE = new Set(['23P01', '40001', '40P01']);

function sqlStateOf(error: unknown): string | undefined {
  const e = error as { sqlState?: string; code?: string; cause?: unknown } | null;
  return e?.sqlState ?? e?.code ?? (e?.cause ? sqlStateOf(e.cause) : undefined);
}

export function isRetryableConflict(error: unknown): boolean {
  const state = sqlStateOf(error);
  return state !== undefined && RETRYABLE.has(state);
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
