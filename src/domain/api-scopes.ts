/**
 * What an API key may do. `all` is a secret key's power (and the only scope that manages
 * keys); the others are restricted keys' scopes, one per kind of resource and verb. A write
 * scope includes the read of the same resource (as Stripe's restricted keys do), so a key that
 * creates onramps can read the one it created.
 */
export const API_SCOPES = [
  'all',
  'rates:read',
  'onramps:read',
  'onramps:write',
  'deposits:read',
  'balance:read',
  'withdrawals:write',
  'webhooks:write',
  'sandbox:write',
] as const;

export type ApiScope = (typeof API_SCOPES)[number];

/** Scopes that also grant another: a write grants the read of its resource. */
const IMPLIED: Partial<Record<ApiScope, readonly ApiScope[]>> = {
  'onramps:write': ['onramps:read'],
};

export function isApiScope(value: unknown): value is ApiScope {
  return typeof value === 'string' && (API_SCOPES as readonly string[]).includes(value);
}

/**
 * Whether a key holding `granted` may do what needs any one of `needed`. `all` grants
 * everything; an empty `needed` means only `all` will do (key management).
 */
export function scopesAllow(granted: readonly ApiScope[], needed: readonly ApiScope[]): boolean {
  if (granted.includes('all')) return true;
  return granted.some(
    (scope) => needed.includes(scope) || (IMPLIED[scope] ?? []).some((s) => needed.includes(s)),
  );
}
