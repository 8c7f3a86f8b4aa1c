import type { InboundTransfer } from '../../domain/inbound-transfer';
import type { BankNotificationAdapter } from './bank-adapter';
import type { BankTransfers } from './bank-transfers';

import type { BankProviderName } from '../../domain/bank-provider-names';

export { BANK_PROVIDER_NAMES, type BankProviderName } from '../../domain/bank-provider-names';

/**
 * What the merchant told us about the payer (`customer` on `POST /v1/onramp`), which a
 * provider may need before it opens an account. Unsealed only to open an account.
 */
export interface ProviderCustomer {
  email: string;
  firstName?: string;
  lastName?: string;
  /** As given: digits with an optional leading +. */
  phone?: string;
  /** 11 digits. */
  bvn?: string;
  /** 11 digits. */
  nin?: string;
}

/** One account to open for one onramp. */
export interface AccountRequest {
  /** Our id for the account (the onramp id): the provider's idempotency key where it takes one. */
  reference: string;
  /** The name the payer's bank shows (the merchant's display name). */
  accountName: string;
  customer: ProviderCustomer;
}

/** An account the provider opened for us. */
export interface ProvisionedAccount {
  /** 10-digit NUBAN. */
  accountNumber: string;
  bankCode: string;
  bankName: string;
  accountName: string;
  /** The provider's own id of it (Paystack's dedicated account id, Monnify's accountReference). */
  providerAccountId: string;
}

/** What the provider's own API says about a transfer a notification announced. */
export type TransferConfirmation =
  /** The provider knows it as a successful NGN credit; `transfer` holds the provider's figures. */
  | { confirmed: true; transfer: InboundTransfer }
  /** The provider does not know it, or not as announced (amount, account, status, currency). */
  | { confirmed: false; reason: string };

export interface ProviderHealth {
  ok: boolean;
  /** Why not, for `/health` and the logs (never a secret). */
  detail?: string;
}

/**
 * The provider could not be reached or answered 5xx / 429 / a timeout: try again later (or the
 * next provider). Never carries a secret in its message.
 */
export class ProviderUnavailableError extends Error {
  override readonly name = 'ProviderUnavailableError';
}

/** The provider answered and refused the request for good (4xx other than 429). */
export class ProviderRefusedError extends Error {
  override readonly name = 'ProviderRefusedError';
}

/**
 * A bank provider: opens virtual accounts, tells us of transfers into them (signed
 * notifications), confirms them through its own API before we credit anything, lists them for
 * the sweep that finds lost notifications, and sends returns to payers.
 *
 * Every method that calls the provider throws `ProviderUnavailableError` for transient trouble
 * and `ProviderRefusedError` for a definite refusal; none runs inside a database transaction.
 */
export interface BankProvider {
  readonly name: BankProviderName;
  /** True for the sandbox (simulated money): production refuses to start with it. */
  readonly simulated: boolean;
  /**
   * True when accounts come from our own NUBAN pool (sandbox, hmac); false when the provider
   * opens them (`openAccount`).
   */
  readonly pooled: boolean;
  /** The customer fields this provider needs before it opens an account (API names). */
  missingCustomerFields(customer: ProviderCustomer): string[];
  /** Opens (or, for a reference it already knows, finds) the account. Not for pooled ones. */
  openAccount(request: AccountRequest): Promise<ProvisionedAccount>;
  /** Checks the provider answers with our credentials (cheap, authenticated call). */
  health(): Promise<ProviderHealth>;
  /** Checks a notification's signature and turns it into our vocabulary (pure, no I/O). */
  readonly notifications: BankNotificationAdapter;
  /**
   * Asks the provider's API about an announced inbound transfer (Paystack's verify, Monnify's
   * transaction status). A provider without such an API (hmac) confirms what it was given.
   */
  confirm(transfer: InboundTransfer): Promise<TransferConfirmation>;
  /**
   * Successful inbound transfers to accounts of ours between `from` and `to`, from the
   * provider's API (so confirmed by construction): the sweep credits any no notification
   * brought. Empty for providers without such an API.
   */
  listTransfers(window: { from: Date; to: Date }): Promise<InboundTransfer[]>;
  /** Returns to payers, through this provider's transfer / disbursement API. */
  readonly transfers: BankTransfers;
}
