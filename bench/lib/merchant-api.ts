/** The merchant's REST calls the benchmarks need to set up (keep-alive fetch, JSON). */
export async function api<T = Record<string, unknown>>(
  baseUrl: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** A PERMANENT onramp (never expires, no rate id): its account number. */
export async function permanentOnramp(
  baseUrl: string,
  key: string,
  settlement: Record<string, unknown> = { mode: 'MERCHANT_BALANCE' },
): Promise<string> {
  // The job runner publishes the first rate at start; onramps need one to exist.
  for (let i = 0; i < 100; i += 1) {
    const rate = await api(baseUrl, key, 'GET', '/v1/rates?from=NGN&to=USDC');
    if (rate.status === 200) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const created = await api<{ virtual_account: { account_number: string } }>(
    baseUrl,
    key,
    'POST',
    '/v1/onramp',
    { type: 'PERMANENT', user: { email: 'bench@example.com' }, settlement },
  );
  if (created.status !== 201) throw new Error(`POST /v1/onramp answered ${created.status}`);
  return created.body.virtual_account.account_number;
}
