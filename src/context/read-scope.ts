import { DomainError, ErrorCode } from '../domain/errors';
import type { RequestContext } from './request-context';

export function forbidden(
  message = 'A client secret can only read its own onramp and deposits',
): DomainError {
  return new DomainError(ErrorCode.Forbidden, message);
}

/**
 * The rows a context may read, for read services to put in their SQL: the merchant's own
 * (`merchantId` null: an operator reading every merchant), and for a client secret only its
 * onramp's.
 */
export interface ReadScope {
  merchantId: string | null;
  onrampId: string | null;
}

export function readScopeOf(ctx: RequestContext): ReadScope {
  if (ctx.kind === 'operator') return { merchantId: ctx.merchantId, onrampId: null };
  const principal = ctx.principal;
  return {
    merchantId: ctx.merchantId,
    onrampId: principal.kind === 'client_secret' ? principal.onrampId : null,
  };
}

/**
 * One onramp asked for by id: a client secret naming another onramp is 403, decided before
 * anything is read (whether that onramp exists is never revealed to it).
 */
export function assertOnrampInScope(scope: ReadScope, onrampId: string): void {
  if (scope.onrampId !== null && scope.onrampId !== onrampId) throw forbidden();
}

/**
 * The onramp a listing (or a subscription) is limited to: a client secret's own onramp is
 * implied and naming another one is 403; others list what they ask for.
 */
export function listingOnramp(
  scope: ReadScope,
  requestedOnrampId: string | null | undefined,
): string | undefined {
  const onrampId = requestedOnrampId || scope.onrampId || undefined;
  if (onrampId) assertOnrampInScope(scope, onrampId);
  return onrampId;
}

/** The merchant a merchant-wide read (onramp lists, volumes) is for; a client secret is 403. */
export function merchantWide(ctx: RequestContext): string {
  if (ctx.kind === 'operator') {
    throw new Error('merchant-wide reads need a merchant context, not an operator one');
  }
  if (ctx.principal.kind !== 'secret_key') throw forbidden();
  return ctx.merchantId;
}
