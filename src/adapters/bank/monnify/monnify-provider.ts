import type { Clock } from '../../../clock';
import type { Config } from '../../../config';
import type { InboundTransfer } from '../../../domain/inbound-transfer';
import type { BankNotificationAdapter } from '../bank-adapter';
import type {
  AccountRequest,
  BankProvider,
  ProviderCustomer,
  ProviderHealth,
  ProvisionedAccount,
  TransferConfirmation,
} from '../bank-provider';
import type { BankTransfers } from '../bank-transfers';
import { MonnifyReservedAccounts, monnifyMissingFields } from './monnify-accounts';
import { MonnifyApi } from './monnify-api';
import { MonnifyDisbursements } from './monnify-disbursements';
import { MonnifyNotificationAdapter } from './monnify-notifications';
import {
  DEFAULT_LISTING,
  MonnifyTransactions,
  type TransactionListing,
} from './monnify-transactions';

export interface MonnifyProviderOptions {
  baseUrl: string;
  apiKey: string;
  /** Logs in with the API key and signs notifications. */
  secretKey: string;
  contractCode: string;
  /** The wallet account returns are paid from. */
  sourceAccount: string;
  /** Bank codes for new reserved accounts, in order; null: every bank Monnify offers. */
  preferredBanks: readonly string[] | null;
  timeoutMs: number;
  clock: Clock;
  tokenMarginSeconds?: number;
  listing?: TransactionListing;
}

/**
 * Monnify reserved accounts as a `BankProvider` (docs/providers-monnify.md): one reserved
 * account per onramp (`accountReference` = the onramp id), collections confirmed by the
 * transaction status API, swept from the transaction search, returns paid as disbursements
 * from our wallet, notifications signed `monnify-signature`.
 */
export class MonnifyProvider implements BankProvider {
  readonly name = 'monnify';
  readonly simulated = false;
  readonly pooled = false;
  readonly notifications: BankNotificationAdapter;
  readonly transfers: BankTransfers;
  private readonly api: MonnifyApi;
  private readonly accounts: MonnifyReservedAccounts;
  private readonly transactions: MonnifyTransactions;

  constructor(options: MonnifyProviderOptions) {
    this.api = new MonnifyApi(options);
    this.accounts = new MonnifyReservedAccounts(
      this.api,
      options.contractCode,
      options.preferredBanks,
    );
    this.transactions = new MonnifyTransactions(
      this.api,
      this.accounts,
      options.listing ?? DEFAULT_LISTING,
    );
    this.notifications = new MonnifyNotificationAdapter(options.secretKey);
    this.transfers = new MonnifyDisbursements(this.api, options.sourceAccount);
  }

  missingCustomerFields(customer: ProviderCustomer): string[] {
    return monnifyMissingFields(customer);
  }

  openAccount(request: AccountRequest): Promise<ProvisionedAccount> {
    return this.accounts.open(request);
  }

  /** A real login (a cached token proves nothing about the credentials today). */
  async health(): Promise<ProviderHealth> {
    try {
      await this.api.loginNow();
      return { ok: true };
    } catch (error) {
      return { ok: false, detail: error instanceof Error ? error.message : String(error) };
    }
  }

  confirm(transfer: InboundTransfer): Promise<TransferConfirmation> {
    return this.transactions.confirm(transfer);
  }

  listTransfers(window: { from: Date; to: Date }): Promise<InboundTransfer[]> {
    return this.transactions.list(window);
  }
}

/** The provider from the configuration (`bankProviderProblems` checked its settings). */
export function monnifyProviderFromConfig(config: Config, clock: Clock): MonnifyProvider {
  const {
    MONNIFY_API_KEY: apiKey,
    MONNIFY_SECRET_KEY: secretKey,
    MONNIFY_CONTRACT_CODE: contractCode,
    MONNIFY_SOURCE_ACCOUNT: sourceAccount,
  } = config;
  if (!apiKey || !secretKey || !contractCode || !sourceAccount) {
    throw new Error(
      'monnify needs MONNIFY_API_KEY, MONNIFY_SECRET_KEY, MONNIFY_CONTRACT_CODE and MONNIFY_SOURCE_ACCOUNT',
    );
  }
  return new MonnifyProvider({
    baseUrl: config.MONNIFY_BASE_URL,
    apiKey,
    secretKey,
    contractCode,
    sourceAccount,
    preferredBanks: config.MONNIFY_PREFERRED_BANKS?.split(',') ?? null,
    timeoutMs: config.BANK_PROVIDER_TIMEOUT_MS,
    clock,
  });
}
