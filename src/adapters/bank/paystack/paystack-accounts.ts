import {
  ProviderUnavailableError,
  type AccountRequest,
  type ProviderCustomer,
  type ProvisionedAccount,
} from '../bank-provider';
import type { PaystackBanks } from './paystack-banks';
import { isNotFound, type PaystackClient } from './paystack-client';
import { isObject, type Json } from './paystack-json';

/**
 * The customer fields Paystack needs before it opens a dedicated account, named as in `POST
 * /v1/onramp` (`customer.first_name`), as Monnify's are: the 422 lists both providers' together.
 */
export function missingPaystackFields(customer: ProviderCustomer): string[] {
  const present = (value: string | undefined) => value !== undefined && value.trim() !== '';
  return [
    ...(present(customer.firstName) ? [] : ['customer.first_name']),
    ...(present(customer.lastName) ? [] : ['customer.last_name']),
    ...(present(customer.phone) ? [] : ['customer.phone']),
  ];
}

interface PaystackCustomer {
  id: number;
  code: string;
}

/**
 * The Paystack customer's email for one onramp: the payer's address with our reference as a
 * plus tag (`ada+onr_01j...@example.com`). Paystack ties a dedicated account to a customer and
 * a customer to an email, so the payer's own address would give every onramp of that payer
 * the same account number; the tag gives each onramp its own customer and account, and still
 * reaches the payer at mail hosts that honour plus tags. The local part stays within 64.
 */
export function customerEmailFor(email: string, reference: string): string {
  const at = email.lastIndexOf('@');
  const tag = `+${reference.toLowerCase()}`;
  const local = email
    .slice(0, at)
    .split('+')[0]
    .slice(0, Math.max(1, 64 - tag.length));
  return `${local}${tag}${email.slice(at)}`;
}

function readCustomer(data: unknown): PaystackCustomer {
  if (isObject(data) && typeof data.id === 'number' && typeof data.customer_code === 'string') {
    return { id: data.id, code: data.customer_code };
  }
  throw new ProviderUnavailableError('Paystack answered a customer without id or customer_code');
}

/**
 * Opens dedicated virtual accounts, Paystack's multi-step flow (the DVA guide's "Flow A"):
 *
 * 1. find this onramp's customer by email (`GET /customer/{email}`, the payer's address tagged
 *    with our reference: `customerEmailFor`), or create it (`POST /customer` with that email,
 *    first_name, last_name, phone and our reference in `metadata`);
 * 2. if the customer already has an active NGN dedicated account (`GET
 *    /dedicated_account?customer={id}&active=true`), answer that one: a retry of an
 *    `openAccount` whose answer was lost (a timeout after Paystack created it) finds the
 *    account instead of asking for a second. Paystack takes no idempotency key on these calls;
 *    this look-up is ours;
 * 3. else `POST /dedicated_account` with the customer code, `preferred_bank` and the names and
 *    phone (the guide: they may be given here for a customer created without them).
 *
 * The account's `bankCode` is the bank's NIP/CBN code from Paystack's own bank list, matched
 * on the account's `bank.slug` then `bank.id` (Paystack's id, 20 for Wema Bank, is not a
 * code); when neither matches, the slug is recorded so the field still names the bank.
 */
export class PaystackAccounts {
  constructor(
    private readonly client: PaystackClient,
    private readonly banks: PaystackBanks,
    private readonly preferredBank: string,
  ) {}

  async open(request: AccountRequest): Promise<ProvisionedAccount> {
    const { customer } = request;
    const missing = missingPaystackFields(customer);
    if (missing.length > 0) {
      throw new Error(`openAccount without ${missing.join(', ')} (check first)`);
    }
    const names = {
      first_name: customer.firstName!.trim(),
      last_name: customer.lastName!.trim(),
      phone: customer.phone!.trim(),
    };
    // The bank list first: Paystack being down shows before anything is created.
    await this.banks.load();
    const email = customerEmailFor(customer.email, request.reference);
    const found = await this.findCustomer(email);
    const paystackCustomer =
      found ??
      readCustomer(
        (
          await this.client.post('create customer', '/customer', {
            email,
            ...names,
            // PS-OAS CustomerCreate.yaml: "Stringified JSON object of custom data".
            metadata: JSON.stringify({ onramp_reference: request.reference }),
          })
        ).data,
      );

    const existing = found ? await this.activeAccountOf(found) : null;
    const account =
      existing ??
      (
        await this.client.post('create dedicated account', '/dedicated_account', {
          customer: paystackCustomer.code,
          preferred_bank: this.preferredBank,
          ...names,
        })
      ).data;
    return this.provisioned(account);
  }

  private async findCustomer(email: string): Promise<PaystackCustomer | null> {
    try {
      const answer = await this.client.get(
        'fetch customer',
        `/customer/${encodeURIComponent(email)}`,
      );
      return readCustomer(answer.data);
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  private async activeAccountOf(customer: PaystackCustomer): Promise<Json | null> {
    const answer = await this.client.get('list dedicated accounts', '/dedicated_account', {
      customer: customer.id,
      active: true,
      currency: 'NGN',
    });
    const accounts = Array.isArray(answer.data) ? answer.data.filter(isObject) : [];
    return accounts.find((a) => a.active !== false && (a.currency ?? 'NGN') === 'NGN') ?? null;
  }

  private async provisioned(data: unknown): Promise<ProvisionedAccount> {
    if (!isObject(data)) {
      throw new ProviderUnavailableError('Paystack answered a dedicated account without data');
    }
    const number = data.account_number;
    // One third-party page shows it as a JSON number; 10 digits survive that exactly.
    const accountNumber =
      typeof number === 'number' && Number.isSafeInteger(number) ? String(number) : number;
    if (typeof accountNumber !== 'string' || !/^[0-9]{10}$/.test(accountNumber)) {
      throw new ProviderUnavailableError(
        'Paystack answered a dedicated account whose account_number is not 10 digits',
      );
    }
    const bank = isObject(data.bank) ? data.bank : {};
    const bankName = typeof bank.name === 'string' && bank.name !== '' ? bank.name : null;
    if (bankName === null || (typeof data.id !== 'number' && typeof data.id !== 'string')) {
      throw new ProviderUnavailableError(
        'Paystack answered a dedicated account without bank or id',
      );
    }
    const bankCode =
      (await this.banks.codeOfAccountBank(bank)) ??
      (typeof bank.slug === 'string' && bank.slug !== '' ? bank.slug : bankName);
    return {
      accountNumber,
      bankCode,
      bankName,
      accountName: typeof data.account_name === 'string' ? data.account_name : '',
      providerAccountId: String(data.id),
    };
  }
}
