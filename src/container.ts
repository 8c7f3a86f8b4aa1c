import type { Clock } from './clock';
import type { Config } from './config';
import { KeyEnvironment } from './domain/key-environment';
import { dec } from './domain/money';
import { fxVenueFromConfig } from './fx-venue-from-config';
import { AuthService, findMerchant, getMerchant, lockMerchant } from './merchants';
import { MerchantService, moveMerchant } from './merchants';
import { RateService } from './rates';
import { SandboxService } from './sandbox';
import { OnrampService } from './onramps';
import { AccountProvisioning, accountProviderOf, VirtualAccountService } from './onramps';
import type { BankProviderRegistry } from './adapters/bank/bank-providers';
import { LedgerService } from './ledger';
import { DepositTransitions, DepositSettlementService, DepositQueryService } from './deposits';
import {
  BankTransferIntake,
  DepositIngestionService,
  type DepositReversalService,
} from './deposits';
import { chainRegistryFromConfig, type ChainRegistry } from './adapters/chain/chain-registry';
import { addRateLimitHits, ChainHealthService, HealthService, IdempotencyService } from './system';
import {
  PayoutService,
  PayoutSweepService,
  PayoutBlockFollower,
  type PayoutReorgs,
} from './payouts';
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
import { TreasuryService, type ReserveLedger } from './ledger';
import type { MerchantTermsActions } from './flows/merchant-terms';
import { reserveServices } from './container-reserves';
import type { DepositReturnService, ReturnOutcomes, ReturnSender } from './deposits';
import type { ResolutionLinkService } from './deposits';
import { returnServices } from './container-returns';
import type { ServiceAdapters } from './container-adapters';
export type { ServiceAdapters } from './container-adapters';
import { HttpWebhookSender, resolvesToPublicOnly } from './adapters/webhook/webhook-sender';
import { webhookEnvelope } from './flows/webhook-envelope';
import { VERSION } from './version';
import { encryptionFromConfig, type Encryption } from './crypto/encryption-keys';

/** The use cases both transports and the job runner call; built once per process. */
export interface Services {
  clock: Clock;
  config: Config;
  auth: AuthService;
  health: HealthService;
  merchants: MerchantService;
  rates: RateService;
  sandbox: SandboxService;
  accounts: VirtualAccountService;
  onramps: OnrampService;
  idempotency: IdempotencyService;
  ledger: LedgerService;
  /** Reserve holds, their release, and merchant debits for liable reversals. */
  reserves: ReserveLedger;
  depositTransitions: DepositTransitions;
  /** Returns to the payer: started in a transaction (merchant, operator, rules). */
  returns: DepositReturnService;
  resolutionLinks: ResolutionLinkService;
  /** Sends started returns to the bank; run by the job runner only. */
  returnSender: ReturnSender;
  /** Records a return's outcome: the runner's polled answer and the bank's notification. */
  returnOutcomes: ReturnOutcomes;
  ingestion: DepositIngestionService;
  /** A provider's transfer (notified or swept): its account checked, confirmed, then ingested. */
  bankIntake: BankTransferIntake;
  settlement: DepositSettlementService;
  reversals: DepositReversalService;
  deposits: DepositQueryService;
  chains: ChainRegistry;
  chainHealth: ChainHealthService;
  payouts: PayoutService;
  /** Settles payouts block by block; started by the job runner only. */
  payoutFollower: PayoutBlockFollower;
  /** Unsettles payouts booked from blocks a reorg replaced (the follower uses it). */
  payoutReorgs: PayoutReorgs;
  payoutSweep: PayoutSweepService;
  withdrawals: WithdrawalService;
  /** The withdrawal address book (entries, their activation events). */
  withdrawalAddresses: WithdrawalAddressBookService;
  /** The merchant's own settings (`require_address_book`, ...). */
  merchantSettings: MerchantSettingsService;
  webhookEndpoints: WebhookEndpointService;
  webhookDeliveries: WebhookDeliveryService;
  webhookLog: WebhookLogService;
  auditLog: AuditLogService;
  operatorTokens: OperatorTokenService;
  /** Operator actions (command line, admin GraphQL), each with its audit entry. */
  operator: OperatorService;
  /** The operator's reversal liability and reserve of a merchant, audited. */
  merchantTerms: MerchantTermsActions;
  treasury: TreasuryService;
  dashboardSessions: DashboardSessionService;
  /** The keys a merchant manages itself (restricted keys, allowed addresses). */
  apiKeys: ApiKeyService;
  /** The sanctions list in force: its updates and the screening against it (issue 36). */
  sanctions: SanctionsService;
  /** ENCRYPTION_KEY (and the keys being rotated out): seals secrets at rest. */
  encryption: Encryption;
  /** `BANK_PROVIDERS`: accounts, notifications, confirmations, the sweep, returns. */
  bankProviders: BankProviderRegistry;
}

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
