/**
 * The sandbox module's entry point: what transports, jobs and other modules may use.
 * Everything else in this folder is the module's own.
 */
export { SandboxService } from './sandbox.service';
export { SandboxFxVenue } from './sandbox-fx-venue';
export type { SandboxFxVenueOptions } from './sandbox-fx-venue';
export { SandboxBankTransfers } from './sandbox-bank-transfers';
export type { SandboxBankOptions } from './sandbox-bank-transfers';
export {
  chainOutageScenario,
  RATE_SOURCE_DOWN_SINCE_SQL,
  riskRejectScenario,
} from './scenario-reads';
export { sandboxPayer } from './sandbox-payer';
export type { SandboxPayerInput } from './sandbox-payer';

import type { SandboxScenario } from './sandbox-scenario.entity';
/** A sandboxScenario as transports and other modules see it: read-only. */
export type SandboxScenarioRecord = Readonly<SandboxScenario>;
