import {
  ProviderRefusedError,
  ProviderUnavailableError,
  type AccountRequest,
  type ProviderCustomer,
  type ProvisionedAccount,
} from '../bank-provider';
import { isJsonObject } from './exact-json';
import { MonnifyRefusal, type MonnifyApi } from './monnify-api';
import { field, isAccountNumber, stringField, textField, type JsonObject } from './monnify-values';

const IDENTITY_NUMBER = /^[0-9]{11}$/;
/** Reserved accounts whose numbers we remember (they never change); the oldest go first. */
const REMEMBERED_ACCOUNTS = 10_000;

interface ReservedAccount {
  accountReference: string;
  accountName: string | null;
  accounts: {
    bankCode: string;
    bankName: string;
    accountNumber: string;
    accountName: string | null;
  }[];
}

export interface ReservedNumbers {
  /** Every account number of the reserved account (Monnify opens one per bank). */
  all: readonly string[];
  /** The one we gave the payer (`openAccount`'s choice). */
  shown: string;
}

/** The customer fields Monnify needs (API names): an 11-digit BVN or NIN (CBN rule). */
export function monnifyMissingFields(customer: ProviderCustomer): string[] {
  const hasIdentity =
    (customer.bvn !== undefined && IDENTITY_NUMBER.test(customer.bvn)) ||
    (customer.nin !== undefined && IDENTITY_NUMBER.test(customer.nin));
  return hasIdentity ? [] : ['customer.bvn or customer.nin'];
}

const path = (accountReference: string) =>
  `/api/v2/bank-transfer/reserved-accounts/${encodeURIComponent(accountReference)}`;

/** `responseBody` of the create and get answers (MN-WIKI pages/289046631; Monnify's reserved account guide). */
function readReservedAccount(body: JsonObject): ReservedAccount {
  const list = field(body, 'accounts');
  const accounts = (Array.isArray(list) ? list : []).filter(isJsonObject).map((entry) => ({
    bankCode: stringField(entry, 'bankCode') ?? '',
    bankName: textField(entry, 'bankName') ?? '',
    accountNumber: stringField(entry, 'accountNumber') ?? '',
    accountName: textField(entry, 'accountName'),
  }));
  const accountReference = stringField(body, 'accountReference');
  if (!accountReference || accounts.length === 0) {
    throw new ProviderUnavailableError('Monnify answered a reserved account without accounts');
  }
  return { accountReference, accountName: textField(body, 'accountName'), accounts };
}

/**
 * Reserved accounts (`POST /api/v2/bank-transfer/reserved-accounts`, MN-WIKI pages/289046549,
 * MN-NODE `validators/reservedAccountValidator.js`), keyed by our reference as
 * `accountReference` so that opening the same account twice finds the first one.
 */
export class MonnifyReservedAccounts {
  private readonly numbers = new Map<string, ReservedNumbers>();

  constructor(
    private readonly api: MonnifyApi,
    private readonly contractCode: string,
    /** MONNIFY_PREFERRED_BANKS in order; null: every bank Monnify offers. */
    private readonly preferredBanks: readonly string[] | null,
  ) {}

  async open(request: AccountRequest): Promise<ProvisionedAccount> {
    const missing = monnifyMissingFields(request.customer);
    if (missing.length > 0) throw new ProviderRefusedError(`Monnify needs ${missing.join(', ')}`);
    const { customer } = request;
    const customerName =
      [customer.firstName, customer.lastName].filter(Boolean).join(' ').trim() ||
      request.accountName;
    const body = {
      accountReference: request.reference,
      accountName: request.accountName,
      currencyCode: 'NGN',
      contractCode: this.contractCode,
      customerEmail: customer.email,
      customerName,
      ...(customer.bvn && IDENTITY_NUMBER.test(customer.bvn) ? { bvn: customer.bvn } : {}),
      ...(customer.nin && IDENTITY_NUMBER.test(customer.nin) ? { nin: customer.nin } : {}),
      getAllAvailableBanks: this.preferredBanks === null,
      ...(this.preferredBanks ? { preferredBanks: this.preferredBanks } : {}),
    };
    let reserved: ReservedAccount;
    try {
      reserved = readReservedAccount(
        await this.api.call(
          'reserve account',
          'POST',
          '/api/v2/bank-transfer/reserved-accounts',
          body,
        ),
      );
    } catch (error) {
      // A retry after a lost answer: Monnify refuses a second account with the same reference
      // (its wording is not documented), so whatever the refusal, look the reference up.
      if (!(error instanceof MonnifyRefusal) || error.isAuthentication) throw error;
      const existing = await this.api.find('get reserved account', path(request.reference));
      if (!existing) throw error;
      reserved = readReservedAccount(existing);
    }
    this.remember(reserved);
    const chosen = this.choose(reserved);
    return {
      accountNumber: chosen.accountNumber,
      bankCode: chosen.bankCode,
      bankName: chosen.bankName,
      accountName: chosen.accountName ?? reserved.accountName ?? request.accountName,
      providerAccountId: reserved.accountReference,
    };
  }

  /**
   * The account numbers of the reserved account `accountReference` (one per bank) and the one
   * we show payers; null when Monnify has no such reserved account. The status and search
   * answers name only the reference, so this is how they map to our account numbers.
   */
  async lookup(accountReference: string): Promise<ReservedNumbers | null> {
    const known = this.numbers.get(accountReference);
    if (known) return known;
    const found = await this.api.find('get reserved account', path(accountReference));
    return found ? this.remember(readReservedAccount(found)) : null;
  }

  private choose(reserved: ReservedAccount): ReservedAccount['accounts'][number] {
    const chosen =
      this.preferredBanks
        ?.map((code) => reserved.accounts.find((account) => account.bankCode === code))
        .find((account) => account !== undefined) ?? reserved.accounts[0]!;
    if (!isAccountNumber(chosen.accountNumber)) {
      throw new ProviderUnavailableError(
        'Monnify answered an account number that is not 10 digits',
      );
    }
    return chosen;
  }

  private remember(reserved: ReservedAccount): ReservedNumbers {
    const numbers = {
      all: reserved.accounts.map((account) => account.accountNumber),
      shown: this.choose(reserved).accountNumber,
    };
    this.numbers.delete(reserved.accountReference);
    this.numbers.set(reserved.accountReference, numbers);
    if (this.numbers.size > REMEMBERED_ACCOUNTS) {
      this.numbers.delete(this.numbers.keys().next().value!);
    }
    return numbers;
  }
}
