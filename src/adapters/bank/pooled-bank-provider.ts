import type { Clock } from '../../clock';
import type { InboundTransfer } from '../../domain/inbound-transfer';
import { BankSignatureError, type BankEvent, type BankNotificationAdapter } from './bank-adapter';
import type {
  BankProvider,
  ProviderHealth,
  ProvisionedAccount,
  TransferConfirmation,
} from './bank-provider';
import type { BankTransfers, OutboundReturn, ReturnOutcome } from './bank-transfers';
import { HmacBankAdapter } from './hmac-bank-adapter';

/** Refuses every notification: a provider whose notifications are not configured. */
const NO_NOTIFICATIONS: BankNotificationAdapter = {
  name: 'none',
  parse(): BankEvent {
    throw new BankSignatureError('This provider has no notification secret configured');
  },
};

/** The generic provider of v0.1 has no outbound API: its returns are the operator's. */
const NO_OUTBOUND: BankTransfers = {
  name: 'hmac',
  sendReturn(_transfer: OutboundReturn): Promise<ReturnOutcome> {
    return Promise.resolve({
      outcome: 'refused',
      reason: 'the hmac bank provider has no transfer API: return this deposit by hand',
    });
  },
};

export interface PooledProviderOptions {
  name: 'sandbox' | 'hmac';
  clock: Clock;
  /** BANK_WEBHOOK_SECRET: the generic signed notification format (docs/bank-notifications.md). */
  notificationSecret?: string;
  /** Returns: the sandbox bank (sandbox, and hmac outside production), else none. */
  transfers?: BankTransfers;
}

/**
 * The providers whose account numbers come from our own NUBAN pool: `sandbox` (simulated
 * money, transfers through the sandbox endpoints) and `hmac` (a bank that sends the generic
 * signed notification of v0.1). Neither has an API to ask, so a correctly signed notification
 * is taken as confirmed and there is nothing to sweep.
 */
export class PooledBankProvider implements BankProvider {
  readonly name: 'sandbox' | 'hmac';
  readonly simulated: boolean;
  readonly pooled = true;
  readonly notifications: BankNotificationAdapter;
  readonly transfers: BankTransfers;

  constructor(options: PooledProviderOptions) {
    this.name = options.name;
    this.simulated = options.name === 'sandbox';
    this.notifications = options.notificationSecret
      ? new HmacBankAdapter({ secret: options.notificationSecret, clock: options.clock })
      : NO_NOTIFICATIONS;
    this.transfers = options.transfers ?? NO_OUTBOUND;
  }

  missingCustomerFields(): string[] {
    return [];
  }

  openAccount(): Promise<ProvisionedAccount> {
    return Promise.reject(new Error(`${this.name} accounts come from the pool, not openAccount`));
  }

  health(): Promise<ProviderHealth> {
    return Promise.resolve({ ok: true });
  }

  confirm(transfer: InboundTransfer): Promise<TransferConfirmation> {
    return Promise.resolve({ confirmed: true, transfer });
  }

  listTransfers(): Promise<InboundTransfer[]> {
    return Promise.resolve([]);
  }
}
