export interface LedgerCheck {
  name: string;
  /** One sentence: what must hold. */
  description: string;
  /** A `select` with one text column `detail`, one row per violation. */
  sql: string;
}
