import type { Clock } from '../../../clock';
import type { Config } from '../../../config';
import type { InboundTransfer } from '../../../domain/inbound-transfer';
import type {
  AccountRequest,
  BankProvider,
  ProviderCustomer,
  ProviderHealth,
  ProvisionedAccount,
  TransferConfirmation,
} from '../bank-provider';
import type { BankTransfers } from '../bank-transfers';
import { missingPaystackFields, PaystackAccounts } from './paystack-accounts';
import { PaystackBanks } from './paystack-banks';
import { PaystackClient } from './paystack-client';
import { DEFAULT_LIST_LIMITS, PaystackInbound, type InboundListLimits } from './paystack-inbound';
import { PaystackNotificationAdapter } from './paystack-notifications';
import { PaystackTransfers } from './paystack-transfers';

export interface PaystackProviderOptions {
  /** `sk_live_...` / `sk_test_...`: authenticates our calls and signs Paystack's notifications. */
  secretKey: string;
  baseUrl: string;
  /** Bank slug for new dedicated accounts (`wema-bank`, `titan-paystack`; `test-bank` in test mode). */
  preferredBank: string;
  timeoutMs: number;
  clock: Clock;
  listLimits?: InboundListLimits;
}

/**
 * Paystack Dedicated Virtual Accounts (docs/providers-paystack.md): one dedicated NUBAN per
 * Paystack customer, `charge.success` notifications signed with the secret key, verify before
 * crediting, the transaction list for the sweep, and Paystack Transfers for returns.
 */
export class PaystackProvider implements BankProvider {
  readonly name = 'paystack';
  readonly simulated = false;
  readonly pooled = false;
  readonly notifications: PaystackNotificationAdapter;
  readonly transfers: BankTransfers;
  private readonly client: PaystackClient;
  private readonly accounts: PaystackAccounts;
  private readonly inbound: PaystackInbound;

  constructor(options: PaystackProviderOptions) {
    this.client = new PaystackClient({
      baseUrl: options.baseUrl,
      secretKey: options.secretKey,
      timeoutMs: options.timeoutMs,
    });
    const banks = new PaystackBanks(this.client, options.clock);
    this.notifications = new PaystackNotificationAdapter(options.secretKey);
    this.accounts = new PaystackAccounts(this.client, banks, options.preferredBank);
    this.inbound = new PaystackInbound(this.client, options.listLimits ?? DEFAULT_LIST_LIMITS);
    this.transfers = new PaystackTransfers(this.client, banks);
  }

  missingCustomerFields(customer: ProviderCustomer): string[] {
    return missingPaystackFields(customer);
  }

  openAccount(request: AccountRequest): Promise<ProvisionedAccount> {
    return this.accounts.open(request);
  }

  /**
   * `GET /dedicated_account/available_providers`: authenticated, cheap, and refused to an
   * integration without dedicated accounts, which is what we need to know.
   */
  async health(): Promise<ProviderHealth> {
    try {
      await this.client.get(
        'fetch dedicated account providers',
        '/dedicated_account/available_providers',
      );
      return { ok: true };
    } catch (error) {
      return { ok: false, detail: error instanceof Error ? error.message : String(error) };
    }
  }

  confirm(transfer: InboundTransfer): Promise<TransferConfirmation> {
    return this.inbound.confirm(transfer);
  }

  listTransfers(window: { from: Date; to: Date }): Promise<InboundTransfer[]> {
    return this.inbound.list(window);
  }
}

/** The registry's factory: `BANK_PROVIDERS` lists paystack, so its secret key is set. */
export function paystackProviderFromConfig(config: Config, clock: Clock): PaystackProvider {
  if (!config.PAYSTACK_SECRET_KEY) throw new Error('PAYSTACK_SECRET_KEY is required for paystack');
  return new PaystackProvider({
    secretKey: config.PAYSTACK_SECRET_KEY,
    baseUrl: config.PAYSTACK_BASE_URL,
    preferredBank: config.PAYSTACK_PREFERRED_BANK,
    timeoutMs: config.BANK_PROVIDER_TIMEOUT_MS,
    clock,
  });
}
