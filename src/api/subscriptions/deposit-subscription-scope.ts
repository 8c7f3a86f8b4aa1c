import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../../services';
import { assertCanReadOnramp, depositListScope, type Principal } from '../../services/auth.service';
import type { DepositEventFilter } from './deposit-subscribers';

export interface DepositSubscriptionArgs {
  onrampId?: string | null;
  depositId?: string | null;
}

/**
 * What a `depositUpdated` subscription may watch, decided once at subscribe time. The
 * merchant is always the caller's own, so another merchant's onramp or deposit id simply
 * matches nothing (its existence is never revealed). A client secret is held to its onramp:
 * naming another onramp, or a deposit of another onramp of the same merchant, is FORBIDDEN;
 * an unknown deposit id matches nothing.
 */
export async function depositSubscriptionScope(
  em: EntityManager,
  services: Services,
  principal: Principal,
  args: DepositSubscriptionArgs,
): Promise<DepositEventFilter> {
  const onrampId = depositListScope(principal, args.onrampId);
  const depositId = args.depositId || undefined;
  if (principal.kind === 'client_secret' && depositId) {
    const deposit = await services.deposits.find(em, principal.merchantId, depositId);
    if (deposit) assertCanReadOnramp(principal, deposit.onrampId);
  }
  return { merchantId: principal.merchantId, onrampId, depositId };
}
