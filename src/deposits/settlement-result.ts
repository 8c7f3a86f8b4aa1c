/** What a settlement batch reports (src/deposits/deposit-settlement.service.ts). */
export type SettleOutcome = 'SETTLED' | 'PENDING_WITHDRAWAL' | 'FLAGGED' | 'FAILED' | 'skipped';

export interface SettlementOptions {
  /** Deposits claimed per batch. */
  batchSize: number;
  /** How long a claim holds before another run may take the deposit (its holder presumed dead). */
  claimSeconds: number;
}

export interface BatchResult {
  /** Deposits this run claimed (a full batch means more may be waiting). */
  claimed: number;
  /** What became of each deposit the run applied; a claimed deposit absent here was skipped. */
  outcomes: Map<string, SettleOutcome>;
  /**
   * Deposits not applied (the venue unreachable, or their apply failed): left claimed, taken
   * again once the claim expires.
   */
  deferred: Array<{ depositId: string; error: unknown }>;
  /**
   * Deposits filled at the venue whose fill this run did not apply: settled by the run that
   * claimed them after this run's claim expired (same order, so nothing is lost), or moved out
   * of PENDING_FX meanwhile (a bank reversal): then the venue holds an order the ledger does
   * not, for the operator to see in the log.
   */
  unapplied: string[];
}
