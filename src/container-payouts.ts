import type { Clock } from './clock';
import type { Config } from './config';
import type { ServiceAdapters } from './container-adapters';
import type { ChainRegistry } from './adapters/chain/chain-registry';
import type { ChainHealthService } from './system';
import type { LedgerService } from './ledger';
import { BlocklistFile, RiskReviewService, type DepositTransitions } from './deposits';
import { PayoutBlockFollower, PayoutService } from './payouts';
import type { SanctionsService } from './sanctions';
import { ConfirmPayouts } from './flows/confirm-payouts';
import { FlagDepositOfCancelledPayout } from './flows/cancel-payout';

/**
 * The payout pipeline of `createServices` (src/container.ts): the payout service with its
 * ports (booking mined payouts, flagging a cancelled payout's deposit, risk review with the
 * sanctions list in force) and the block follower that settles payouts as blocks come.
 */
export function payoutServices(
  config: Config,
  clock: Clock,
  adapters: ServiceAdapters,
  parts: {
    chains: ChainRegistry;
    chainHealth: ChainHealthService;
    ledger: LedgerService;
    depositTransitions: DepositTransitions;
    sanctions: SanctionsService;
  },
): { payouts: PayoutService; payoutFollower: PayoutBlockFollower } {
  const { chains, chainHealth, ledger, depositTransitions } = parts;
  const payouts = new PayoutService(
    clock,
    config,
    chains,
    chainHealth,
    ledger,
    new ConfirmPayouts(clock, ledger, depositTransitions, adapters.onDepositSettled),
    new FlagDepositOfCancelledPayout(depositTransitions),
    new RiskReviewService(
      clock,
      new BlocklistFile(config.RISK_BLOCKLIST_FILE, adapters.onBlocklistError),
      config.ONRAMP_ENV === 'sandbox',
      parts.sanctions,
    ),
    adapters.payoutSigningLog,
  );
  const payoutFollower = new PayoutBlockFollower(
    chains,
    (em, mined) => payouts.settleMined(em, mined),
    (em, chain, head) => chainHealth.observe(em, chain, head),
    payouts.reorgs,
  );
  return { payouts, payoutFollower };
}
