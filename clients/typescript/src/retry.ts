/**
 * Retries of requests that never got an answer, and of the answers that say "later".
 *
 * - A network error (no HTTP answer: refused, reset, DNS) is retried for GET and DELETE, and for
 *   a POST only with an `Idempotency-Key` (the client gives every POST one), so a POST the
 *   gateway did receive is replayed, never done twice. PATCH is not retried.
 * - An HTTP answer is final, except 429 and 503 carrying `Retry-After` (the gateway did not do
 *   the work): retried after that many seconds when it is at most `maxRetryAfterSeconds`.
 * - A request the caller aborted (its `signal`) is never retried.
 * - At most `attempts` tries in all; waits grow `baseDelayMs` x 2^n, with jitter.
 */
export interface RetryOptions {
  /** Tries in all, the first included (default 3; 1 turns retries off). */
  attempts?: number;
  /** The first wait after a network error, in ms (default 250); each next one doubles. */
  baseDelayMs?: number;
  /** A longer `Retry-After` is not waited for: the 429/503 answer is returned (default 10). */
  maxRetryAfterSeconds?: number;
}

type Fetch = (input: Request) => Promise<Response>;

const RETRIED_STATUSES = new Set([429, 503]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function retriesNetworkErrors(request: Request): boolean {
  if (request.method === 'GET' || request.method === 'DELETE') return true;
  return request.method === 'POST' && request.headers.has('idempotency-key');
}

/** Seconds of a `Retry-After` header (delta-seconds only), or undefined. */
function retryAfterSeconds(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  return value !== null && /^[0-9]{1,6}$/.test(value.trim()) ? Number(value) : undefined;
}

/** `fetch` with the retries above. */
export function retryingFetch(fetchOnce: Fetch, options: RetryOptions = {}): Fetch {
  const attempts = Math.max(1, options.attempts ?? 3);
  const baseDelayMs = options.baseDelayMs ?? 250;
  const maxRetryAfter = options.maxRetryAfterSeconds ?? 10;
  return async (request) => {
    for (let attempt = 1; ; attempt += 1) {
      const last = attempt >= attempts;
      // The body of a Request can be read once: each try sends a copy.
      const copy = last ? request : request.clone();
      let response: Response;
      try {
        response = await fetchOnce(copy);
      } catch (error) {
        if (last || request.signal.aborted || !retriesNetworkErrors(request)) throw error;
        const backoff = baseDelayMs * 2 ** (attempt - 1);
        await sleep(backoff / 2 + Math.random() * (backoff / 2));
        continue;
      }
      const wait = RETRIED_STATUSES.has(response.status) ? retryAfterSeconds(response) : undefined;
      if (last || wait === undefined || wait > maxRetryAfter || request.signal.aborted) {
        return response;
      }
      await response.body?.cancel();
      await sleep(wait * 1000);
    }
  };
}
