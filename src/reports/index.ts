/**
 * Reconciliation exports: CSV of a merchant's deposits and ledger postings over a period,
 * composed from the deposits, ledger and payouts modules' own export reads. Owns no table.
 */
export { DEPOSIT_REPORT_COLUMNS, depositReport } from './deposit-report';
export { LEDGER_REPORT_COLUMNS, ledgerReport } from './ledger-report';
export { reportText } from './report-merchant';
export type { ReportChunk } from './report-merchant';
export { parseReportRange } from '../domain/report-range';
