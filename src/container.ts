import type { Clock } from './clock';
import type { Config } from './config';
import { KeyEnvironment } from './domain/key-environment';
import { dec } from './domain/money';
import { fxVenueFromConfig } from './fx-venue-from-config';
import { AuthService, findMerchant, getMerchant, lockMerchant } from './merchants';
import { MerchantService, moveMerchant } from './merchants';
import type { Services } from './container-services';
import { RateService } from './rates';
import { SandboxService } from './sandbox';
import { OnrampService } from './onramps';
import { AccountProvisioning, accountProviderOf, VirtualAccountService } from './onramps';
import { LedgerService } from './ledger';
import { DepositTransitions, DepositSettlementService, DepositQueryService } from './deposits';
import { BankTransferIntake, DepositIngestionService } from './deposits';
import { chainRegistryFromConfig } from './adapters/chain/chain-registry';
import { addRateLimitHits, ChainHealthService, HealthService, IdempotencyService } from './system';
import { PayoutSweepService } from './payouts';
import { payoutServices } from './container-payouts';
import { WithdrawalAddressBookService, WithdrawalService } from './payouts';
import { SanctionsService } from './sanctions';
import { MerchantSettingsService } from './merchants';
import { withdrawalAddressDelaySeconds } from './domain/withdrawal-addresses';
import { WebhookEndpointService, WebhookDeliveryService } from './webhooks';
import { WebhookLogService, WebhookSendBudget } from './webhooks';
import { ApiKeyService, DashboardSessionService } from './merchants';
import { AuditLogService } from './audit';
import { OperatorService } from './flows/operator-actions';
import { OperatorTokenService } from './operator';
import { TreasuryService } from './ledger';
import { reserveServices } from './container-reserves';
import { returnServices } from './container-returns';
import type { ServiceAdapters } from './container-adapters';
export type { ServiceAdapters } from './container-adapters';
import { HttpWebhookSender, resolvesToPublicOnly } from './adapters/webhook/webhook-sender';
import { webhookEnvelope } from './flows/webhook-envelope';
import { VERSION } from './version';
import { encryptionFromConfig } from './crypto/encryption-keys';

export type { Services } from './container-services';

export function environmentOf(config: Config): KeyEnvironment {
  return config.ONRAMP_ENV === 'production' ? KeyEnvironment.Production : KeyEnvironment.Sandbox;
}

export function createServices(
  config: Config,
  clock: Clock,
  adapters: ServiceAdapters = {},
): Services {
  const auditLog = new AuditLogService(clock);
  const sanctions = new SanctionsService(clock, auditLog);
  const sandbox = new SandboxService(clock, auditLog);
  const rates = new RateService(
    clock,
    {
      feeBps: config.FEE_BPS,
      intervalSeconds: config.RATE_INTERVAL_SECONDS,
      ttlSeconds: config.RATE_TTL_SECONDS,
    },
    // A merchant's rateSourceDown scenario only exists in the sandbox.
    config.ONRAMP_ENV === 'sandbox',
  );
  const accounts = new VirtualAccountService(clock, {
    code: config.VA_BANK_CODE,
    name: config.VA_BANK_NAME,
  });
  const ledger = new LedgerService(clock);
  const depositTransitions = new DepositTransitions(clock, ledger);
  const { returns, returnOutcomes, resolutions, resolutionLinks, returnSender, bankProviders } =
    returnServices(config, clock, ledger, depositTransitions, auditLog, adapters);
  const limits = {
    perDepositUsd: dec(config.DEPOSIT_LIMIT_USD),
    merchantDailyUsd: dec(config.MERCHANT_DAILY_LIMIT_USD),
    systemDailyUsd: dec(config.SYSTEM_DAILY_LIMIT_USD),
  };
  const sandboxEnv = config.ONRAMP_ENV === 'sandbox';
  const addressDelaySeconds = withdrawalAddressDelaySeconds(
    config.WITHDRAWAL_ADDRESS_DELAY_SECONDS,
    sandboxEnv,
  );
  const auth = new AuthService(
    environmentOf(config),
    clock,
    config.CLIENT_SECRET_GRACE_SECONDS,
    config.API_KEY_CACHE_TTL_MS,
  );
  const encryption = encryptionFromConfig(config);
  const webhookEndpoints = new WebhookEndpointService(clock, encryption.box, {
    production: !sandboxEnv,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    rotationSeconds: config.WEBHOOK_SECRET_ROTATION_SECONDS,
    resolvesToPublicOnly: adapters.resolvesToPublicOnly ?? resolvesToPublicOnly,
  });
  const chains = adapters.chains ?? chainRegistryFromConfig(config);
  const chainHealth = new ChainHealthService(clock, chains, sandboxEnv);
  const { payouts, payoutFollower } = payoutServices(config, clock, adapters, {
    chains,
    chainHealth,
    ledger,
    depositTransitions,
    sanctions,
  });
  const merchants = new MerchantService(clock);
  const reserved = reserveServices(config, clock, ledger, depositTransitions, payouts, auditLog);
  const { reserves, reversals, merchantTerms } = reserved;
  const webhookLog = new WebhookLogService(
    clock,
    new WebhookSendBudget(clock, config.WEBHOOK_TEST_AND_REPLAY_PER_HOUR, addRateLimitHits),
  );
  const operatorTokens = new OperatorTokenService(clock);
  const ingestion = new DepositIngestionService(clock, limits, ledger, returns);
  return {
    clock,
    config,
    auth,
    health: new HealthService(),
    merchants,
    rates,
    sandbox,
    accounts,
    onramps: new OnrampService(
      clock,
      {
        ttlSeconds: config.ONRAMP_TTL_SECONDS,
        dailyLimit: config.ONRAMP_DAILY_LIMIT,
        sandbox: config.ONRAMP_ENV === 'sandbox',
      },
      rates,
      accounts,
      sandbox,
      new AccountProvisioning(bankProviders, accounts),
      encryption.box,
      { find: findMerchant, lock: lockMerchant, move: moveMerchant },
      sanctions,
    ),
    idempotency: new IdempotencyService(encryption.box, {
      leaseMs: config.IDEMPOTENCY_LEASE_SECONDS * 1000,
    }),
    ledger,
    reserves,
    depositTransitions,
    returns,
    resolutionLinks,
    returnSender,
    returnOutcomes,
    ingestion,
    bankIntake: new BankTransferIntake(ingestion, accountProviderOf),
    settlement: new DepositSettlementService(
      clock,
      ledger,
      reserves,
      depositTransitions,
      adapters.fxVenue ?? fxVenueFromConfig(config, clock),
      payouts,
      {
        batchSize: config.SETTLEMENT_BATCH_SIZE,
        claimSeconds: config.DEPOSIT_REDRIVE_SECONDS,
      },
      adapters.onDepositSettled,
      sanctions,
    ),
    reversals,
    deposits: new DepositQueryService(),
    chains,
    chainHealth,
    payouts,
    payoutFollower,
    payoutReorgs: payouts.reorgs,
    payoutSweep: new PayoutSweepService(
      clock,
      config,
      chains,
      chainHealth,
      payouts,
      payoutFollower,
    ),
    withdrawals: new WithdrawalService(
      clock,
      ledger,
      payouts,
      dec(config.WITHDRAWAL_MIN_USD),
      config.ONRAMP_ENV === 'sandbox',
      getMerchant,
      sanctions,
    ),
    withdrawalAddresses: new WithdrawalAddressBookService(
      clock,
      auditLog,
      addressDelaySeconds,
      sanctions,
    ),
    // A widening settings change waits as long as a new address does (issue 32).
    merchantSettings: new MerchantSettingsService(clock, auditLog, sandboxEnv, addressDelaySeconds),
    webhookEndpoints,
    webhookDeliveries: new WebhookDeliveryService(
      clock,
      adapters.webhookSender ??
        new HttpWebhookSender({
          timeoutMs: config.WEBHOOK_TIMEOUT_MS,
          publicOnly: !config.WEBHOOK_ALLOW_PRIVATE,
          userAgent: `ngn-onramp-webhooks/${VERSION}`,
        }),
      webhookEnvelope,
      {
        leaseMs: config.WEBHOOK_TIMEOUT_MS + 45_000,
        openSecret: (merchantId, stored) => webhookEndpoints.open(merchantId, stored),
      },
    ),
    webhookLog,
    auditLog,
    operatorTokens,
    operator: new OperatorService(
      clock,
      auditLog,
      merchants,
      resolutions,
      reversals,
      webhookLog,
      operatorTokens,
    ),
    merchantTerms,
    treasury: new TreasuryService(clock, chains),
    dashboardSessions: new DashboardSessionService(clock, auth, config.DASHBOARD_SESSION_SECONDS),
    apiKeys: new ApiKeyService(clock, environmentOf(config), auditLog),
    encryption,
    bankProviders,
    sanctions,
  };
}
