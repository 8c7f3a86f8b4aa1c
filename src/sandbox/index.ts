/**
 * The sandbox module's entry point: what transports, jobs and other modules may use.
 * Everything else in this folder is the module's own.
 */
export { SandboxService } from './sandbox.service';
export {
  chainOutageScenario,
  RATE_SOURCE_DOWN_SINCE_SQL,
  riskRejectScenario,
} from './scenario-reads';
export { SANDBOX_PAYER } from './sandbox-payer';
