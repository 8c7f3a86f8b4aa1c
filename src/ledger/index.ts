/**
 * The ledger module's entry point: what transports, jobs and other modules may use.
 * Everything else in this folder is the module's own.
 */
export { lockAvailableBalance, payoutHasEntries } from './ledger-locks';
export { exportMerchantPostings } from './ledger-export';
export type { MerchantPosting } from './ledger-export';
export { LedgerService } from './ledger.service';
export type { LedgerEntry, MerchantBalance } from './ledger.service';
export { list, lit, merchantAccountIdSql, NET_CREDIT, operatorBalance } from './ledger-sql';
export { TreasuryService } from './treasury.service';
export { ReserveLedger } from './reserve-ledger';
export type { ReserveOptions, SettlementCredit } from './reserve-ledger';
export { readMerchantTerms, writeMerchantTerms } from './merchant-terms';
export type { MerchantLedgerTerms } from './merchant-terms';
