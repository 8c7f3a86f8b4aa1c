/**
 * Reconciliation: the checks that hold the modules to each other (the ledger against the
 * deposits, payouts and withdrawals it books, the outbox against what it names). Not a module
 * and owner of no table: it is the one place that reads every module's tables, read-only, so
 * that a module's bug cannot hide behind the module's own reads (`npm run check:layout` checks
 * that nothing here writes).
 */
export { checkLedger, LEDGER_CHECK_NAMES } from './ledger-check';
export type { LedgerCheck, LedgerQuery, LedgerViolation } from './ledger-check';
