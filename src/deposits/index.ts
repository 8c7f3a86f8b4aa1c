/**
 * The deposits module's entry point: what transports, jobs and other modules may use.
 * Everything else in this folder is the module's own.
 */
export {
  DEPOSIT_TOTALS_BY_STATUS_SQL,
  DEPOSITS_BY_STATUS_SQL,
  UNMATCHED_TRANSFER_SQL,
} from './deposit-counts';
export { DepositIngestionService } from './deposit-ingestion.service';
export { BankTransferIntake } from './bank-intake';
export { BankSweep } from './bank-sweep';
export type { SweepRound } from './bank-sweep';
export type { IntakeOutcome } from './bank-intake';
export { exportDeposits } from './deposit-export';
export { DepositQueryService } from './deposit-query.service';
export { depositSnapshot } from './deposit-snapshot';
export { lockDeposit } from './deposit-lock';
export type { DepositRecord } from './deposit-lock';
export { DepositResolutionService } from './deposit-resolution.service';
export { DepositReversalService } from './deposit-reversal.service';
export type { ReversalOutcome } from './deposit-reversal.service';
export { DepositSettlementService } from './deposit-settlement.service';
export { DepositTransitions } from './deposit-transitions';
export type { BatchMove } from './deposit-transitions';
export { depositViewFromSnapshot } from './deposit-view';
export { lockPaidOut, paidOutMoves } from './paid-out-deposits';
export type { PaidOutDeposit } from './paid-out-deposits';
export type { DepositView } from './deposit-view';
export type { InboundTransfer } from '../domain/inbound-transfer';
export { assetAmount, ngnAmount, publicDeposit } from './public-deposit';
export { BlocklistFile, RiskReviewService } from './risk-review.service';
export { SettlementDrain } from './settlement-drain';
export { reportSettled } from './settlement-observer';
export type { SettledDeposit, SettlementObserver } from './settlement-observer';
export { DepositReturnService } from './deposit-returns.service';
export { ReturnSender } from './return-sender';
export { ReturnOutcomes } from './return-outcomes';
export type { AppliedReturnOutcome } from './return-outcomes';
export { ResolutionLinkService } from './resolution-links.service';
export { PayerChoiceRefused, ResolutionLinkRefused } from './payer-choice';
export type { PayerChoice } from './payer-choice';
export type { PayerPageView } from './resolution-links.service';
export { depositTraceParents } from './deposit-traces';
