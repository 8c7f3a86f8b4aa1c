/**
 * The ledger module's entry point: what transports, jobs and other modules may use.
 * Everything else in this folder is the module's own.
 */
export { LEDGER_CHECK_NAMES, checkLedger } from './ledger-check';
export { lockAvailableBalance, payoutHasEntries } from './ledger-locks';
export { LedgerService } from './ledger.service';
export type { LedgerEntry, MerchantBalance } from './ledger.service';
export { TreasuryService } from './treasury.service';
