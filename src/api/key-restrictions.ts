import type { Principal } from '../context/request-context';
import { scopesAllow, type ApiScope } from '../domain/api-scopes';
import { DomainError, ErrorCode } from '../domain/errors';

/**
 * The two refusals a key can earn after it authenticated, in the order every transport checks
 * them: its client address (403 `ip_not_allowed`), then what it asks (403
 * `insufficient_scope`). Client secrets have neither: their limits are the routes and fields
 * that allow them.
 */
export function assertAddressAllowed(principal: Principal, address: string): void {
  if (principal.kind !== 'secret_key' || !principal.allowedIps) return;
  if (!principal.allowedIps(address)) {
    throw new DomainError(ErrorCode.IpNotAllowed, `This API key may not be used from ${address}`);
  }
}

/** `needed`: any one of them will do; empty or absent: only `all` (key management, new routes). */
export function assertScopes(principal: Principal, needed: readonly ApiScope[] | undefined): void {
  if (principal.kind !== 'secret_key') return;
  if (scopesAllow(principal.scopes, needed ?? [])) return;
  throw insufficientScope(needed ?? []);
}

export function insufficientScope(needed: readonly ApiScope[]): DomainError {
  const wanted = needed.length === 0 ? 'all' : needed.join(' or ');
  return new DomainError(ErrorCode.InsufficientScope, `This API key lacks the scope ${wanted}`);
}
