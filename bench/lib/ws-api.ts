/**
 * Small helpers shared by the subscriptions and webhooks benchmarks: the service's REST API
 * over fetch, a PERMANENT onramp, polling.
 */

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `BENCH_QUICK=1`: shorter phases, for working on a benchmark (not for its figures). */
export const QUICK = process.env.BENCH_QUICK === '1';

export async function api(
  baseUrl: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A PERMANENT MERCHANT_BALANCE onramp (waits for the first rate); its account number. */
export async function permanentOnramp(baseUrl: string, key: string): Promise<string> {
  const deadline = Date.now() + 30_000;
  while ((await api(baseUrl, key, 'GET', '/v1/rates?from=NGN&to=USDC')).status !== 200) {
    if (Date.now() > deadline) throw new Error('no rate within 30 s');
    await pause(200);
  }
  const created = await api(baseUrl, key, 'POST', '/v1/onramp', {
    type: 'PERMANENT',
    user: { email: 'bench@example.com' },
    settlement: { mode: 'MERCHANT_BALANCE' },
  });
  if (created.status !== 201) throw new Error(`POST /v1/onramp: ${JSON.stringify(created)}`);
  return (created.body.virtual_account as { account_number: string }).account_number;
}

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
