import type { Clock } from './clock';
import type { Config } from './config';
import type { AuthService, MerchantService, MerchantSettingsService } from './merchants';
import type { ApiKeyService, DashboardSessionService } from './merchants';
import type { RateService } from './rates';
import type { SandboxService } from './sandbox';
import type { OnrampService, VirtualAccountService } from './onramps';
import type { BankProviderRegistry } from './adapters/bank/bank-providers';
import type { LedgerService, ReserveLedger, TreasuryService } from './ledger';
import type {
  BankTransferIntake,
  DepositIngestionService,
  DepositQueryService,
  DepositReturnService,
  DepositReversalService,
  DepositSettlementService,
  DepositTransitions,
  ResolutionLinkService,
  ReturnOutcomes,
  ReturnSender,
} from './deposits';
import type { ChainRegistry } from './adapters/chain/chain-registry';
import type { ChainHealthService, HealthService, IdempotencyService } from './system';
import type {
  PayoutBlockFollower,
  PayoutReorgs,
  PayoutService,
  PayoutSweepService,
  WithdrawalAddressBookService,
  WithdrawalService,
} from './payouts';
import type { SanctionsService } from './sanctions';
import type { WebhookDeliveryService, WebhookEndpointService, WebhookLogService } from './webhooks';
import type { AuditLogService } from './audit';
import type { OperatorService } from './flows/operator-actions';
import type { OperatorTokenService } from './operator';
import type { MerchantTermsActions } from './flows/merchant-terms';
import type { Encryption } from './crypto/encryption-keys';

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
