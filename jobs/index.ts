import { generateRatesJob } from './generate-rates.job';
import { pruneRateLimitsJob } from './prune-rate-limits.job';
import { expireOnrampsJob } from './expire-onramps.job';
import { pruneIdempotencyKeysJob } from './prune-idempotency-keys.job';
import { settleDepositsJob } from './settle-deposits.job';
import { sandboxAutoDepositsJob } from './sandbox-auto-deposits.job';
import { processPayoutsJob } from './process-payouts.job';
import { deliverWebhooksJob } from './deliver-webhooks.job';
import { pruneDashboardSessionsJob } from './prune-dashboard-sessions.job';
import { announceWithdrawalAddressesJob } from './announce-withdrawal-addresses.job';
import { sendReturnsJob } from './send-returns.job';
import { applySettingsChangesJob } from './apply-settings-changes.job';
import { sweepBankTransfersJob } from './sweep-bank-transfers.job';
import { releaseReservesJob } from './release-reserves.job';
import type { JobDefinition } from './job';

export const jobs: JobDefinition[] = [
  generateRatesJob,
  pruneRateLimitsJob,
  expireOnrampsJob,
  pruneIdempotencyKeysJob,
  settleDepositsJob,
  sandboxAutoDepositsJob,
  processPayoutsJob,
  deliverWebhooksJob,
  pruneDashboardSessionsJob,
  announceWithdrawalAddressesJob,
  sendReturnsJob,
  applySettingsChangesJob,
  sweepBankTransfersJob,
  releaseReservesJob,
];
