import { latestPayoutOf } from './payouts';
import { getMerchant } from './merchants';
import { getRate, newestValidRate } from './rates';
import type { BankTransfers } from './adapters/bank/bank-transfers';
import {
  bankProvidersFromConfig,
  ProviderRoutedTransfers,
  type BankProviderRegistry,
} from './adapters/bank/bank-providers';
import { sandboxBankFromConfig } from './sandbox-bank-from-config';
import type { Clock } from './clock';
import type { Config } from './config';
import { publicBaseUrl } from './config-resolution-links';
import { resolutionLinkKey } from './crypto/resolution-link-key';
import {
  DepositResolutionService,
  DepositReturnService,
  ResolutionLinkService,
  ReturnOutcomes,
  ReturnSender,
  type DepositTransitions,
} from './deposits';
import { dec } from './domain/money';
import type { LedgerService } from './ledger';
import type { AuditLogService } from './audit';

/** The bank side of returns, as a test or another deployment hands it in. */
export interface ReturnAdapters {
  /** The bank's outbound transfers (returns to the payer); the sandbox bank by default. */
  bankTransfers?: BankTransfers;
  /** Told when the sandbox bank could not deliver a return's notification. */
  onBankNotifyError?: (error: unknown, reference: string) => void;
  /** The bank providers (default: `BANK_PROVIDERS`, built from the configuration). */
  bankProviders?: BankProviderRegistry;
}

/**
 * Everything that gives a deposit back or resolves it (kept out of container.ts): starting
 * returns, the bank's answers (polled or notified), the operator's and the payer's
 * resolutions, and the runner's sender over the configured bank.
 */
export function returnServices(
  config: Config,
  clock: Clock,
  ledger: LedgerService,
  transitions: DepositTransitions,
  auditLog: AuditLogService,
  adapters: ReturnAdapters,
) {
  const returns = new DepositReturnService(clock, transitions, dec(config.RETURN_FEE_NGN));
  const returnOutcomes = new ReturnOutcomes(clock, ledger, transitions);
  const resolutions = new DepositResolutionService(clock, ledger, transitions, returns, {
    latestPayoutOf,
    getRate,
    newestValidRate,
  });
  const resolutionLinks = new ResolutionLinkService(
    clock,
    resolutions,
    auditLog,
    {
      base: publicBaseUrl(config),
      key: resolutionLinkKey(config),
      returnFeeNgn: dec(config.RETURN_FEE_NGN),
    },
    getMerchant,
  );
  const sandboxBank =
    adapters.bankTransfers ??
    sandboxBankFromConfig(config, clock, returnOutcomes, adapters.onBankNotifyError);
  const bankProviders =
    adapters.bankProviders ?? bankProvidersFromConfig(config, clock, sandboxBank);
  // Each return goes out through the provider that received its deposit.
  const bank = new ProviderRoutedTransfers(
    bankProviders,
    config.ONRAMP_ENV === 'sandbox' ? sandboxBank : null,
  );
  const returnSender = new ReturnSender(clock, returnOutcomes, bank);
  return { returns, returnOutcomes, resolutions, resolutionLinks, returnSender, bankProviders };
}
