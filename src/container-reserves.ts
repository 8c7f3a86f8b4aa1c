import type { Clock } from './clock';
import type { Config } from './config';
import type { AuditLogService } from './audit';
import { DepositReversalService, type DepositTransitions } from './deposits';
import { MerchantTermsActions } from './flows/merchant-terms';
import { ReserveLedger, type LedgerService } from './ledger';

/**
 * Losses and reserves (kept out of container.ts): the ledger's reserves and merchant debits,
 * the reversals that debit a liable merchant, and the operator's settings of both.
 */
export function reserveServices(
  config: Config,
  clock: Clock,
  ledger: LedgerService,
  transitions: DepositTransitions,
  payouts: ConstructorParameters<typeof DepositReversalService>[4],
  auditLog: AuditLogService,
) {
  const reserves = new ReserveLedger(clock, ledger, {
    defaultLiability: config.REVERSAL_LIABILITY,
    daySeconds: config.RESERVE_DAY_SECONDS,
  });
  return {
    reserves,
    reversals: new DepositReversalService(clock, ledger, reserves, transitions, payouts),
    merchantTerms: new MerchantTermsActions(clock, auditLog, config.REVERSAL_LIABILITY),
  };
}
