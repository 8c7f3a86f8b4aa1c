// The stand-in's records and its answers to Paystack's documented endpoints (shapes from
// PS-OAS and PS-SNIP; see paystack-samples.ts). Every answer is `{status, message, data}`;
// refusals are Paystack's error body `{status: false, message, type, code}` (PS-SNIP
// api/introduction/sample-error.js).
import {
  SAMPLE_BANKS,
  SAMPLE_PROVIDERS,
  verifyData,
  type Json,
  type SampleCharge,
  type SampleCustomer,
} from './paystack-samples';

export interface Answer {
  status: number;
  body: unknown;
}

export const ok = (message: string, data: unknown, meta?: unknown): Answer => ({
  status: 200,
  body: { status: true, message, data, ...(meta === undefined ? {} : { meta }) },
});

export const refusal = (status: number, message: string, code = 'invalid_params'): Answer => ({
  status,
  body: { status: false, message, type: 'validation_error', code },
});

interface Customer extends SampleCustomer {
  metadata: unknown;
}

interface DedicatedAccount {
  id: number;
  customerId: number;
  accountNumber: string;
  accountName: string;
  bank: { name: string; id: number; slug: string };
  createdAt: string;
}

/** What verify answers instead of the record (the "provider does not confirm" tests). */
export type VerifyDisagreement =
  'unknown' | Partial<Pick<SampleCharge, 'amount' | 'status' | 'currency' | 'receiverAccount'>>;

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

export class PaystackBooks {
  readonly customers: Customer[] = [];
  readonly accounts: DedicatedAccount[] = [];
  readonly charges: SampleCharge[] = [];
  readonly disagreements = new Map<string, VerifyDisagreement>();
  /** List entries without `authorization.receiver_bank_account_number` (PS-OAS's list schema has none). */
  listWithoutReceiver = false;

  constructor(readonly id: () => number) {}

  customerByEmailOrCode(key: string): Customer | undefined {
    return this.customers.find((c) => c.email === key || c.customer_code === key);
  }

  createCustomer(body: Json): Answer {
    const email = text(body.email);
    if (!email) return refusal(400, 'Email Address is required', 'missing_params');
    const existing = this.customerByEmailOrCode(email);
    if (existing) return ok('Customer created', this.customerData(existing));
    const id = this.id();
    const customer: Customer = {
      id,
      customer_code: `CUS_${id.toString(36).padStart(15, 'x')}`,
      email,
      first_name: text(body.first_name) || null,
      last_name: text(body.last_name) || null,
      phone: text(body.phone) || null,
      metadata: body.metadata ?? null,
    };
    this.customers.push(customer);
    return ok('Customer created', this.customerData(customer));
  }

  customerData(customer: Customer): Json {
    const account = this.accounts.find((a) => a.customerId === customer.id);
    return {
      ...customer,
      integration: 100032,
      domain: 'test',
      risk_action: 'default',
      identified: false,
      identifications: null,
      dedicated_account: account ? this.accountData(account) : null,
      createdAt: '2016-03-29T20:03:09.584Z',
      updatedAt: '2016-03-29T20:03:09.584Z',
    };
  }

  /** PS-SNIP api/dedicated-virtual-account/create/response.json. */
  accountData(account: DedicatedAccount): Json {
    const customer = this.customers.find((c) => c.id === account.customerId)!;
    return {
      bank: account.bank,
      account_name: account.accountName,
      account_number: account.accountNumber,
      assigned: true,
      currency: 'NGN',
      metadata: null,
      active: true,
      id: account.id,
      created_at: account.createdAt,
      updated_at: account.createdAt,
      assignment: {
        integration: 100043,
        assignee_id: customer.id,
        assignee_type: 'Customer',
        expired: false,
        account_type: 'PAY-WITH-TRANSFER-RECURRING',
        assigned_at: account.createdAt,
        expired_at: null,
      },
      customer: { ...customer, risk_action: 'default' },
    };
  }

  createDedicatedAccount(body: Json): Answer {
    const customer = this.customerByEmailOrCode(text(body.customer));
    if (!customer) return refusal(400, 'Customer not found', 'invalid_params');
    const provider = SAMPLE_PROVIDERS.find((p) => p.provider_slug === text(body.preferred_bank));
    if (!provider) return refusal(400, 'Invalid preferred bank', 'invalid_params');
    // The DVA guide: names and phone may be given here for a customer created without them.
    customer.first_name = text(body.first_name) || customer.first_name;
    customer.last_name = text(body.last_name) || customer.last_name;
    customer.phone = text(body.phone) || customer.phone;
    if (!customer.first_name || !customer.last_name || !customer.phone) {
      return refusal(
        400,
        'Customer first name, last name and phone are required',
        'missing_params',
      );
    }
    if (this.accounts.some((a) => a.customerId === customer.id)) {
      // Not in the docs: the stand-in refuses a second account so a client that does not look
      // first fails its test.
      return refusal(400, 'Customer already has an active dedicated account');
    }
    const id = this.id();
    const account: DedicatedAccount = {
      id,
      customerId: customer.id,
      accountNumber: `99300${String(id).padStart(5, '0')}`,
      accountName: `KAROKART / ${customer.first_name} ${customer.last_name}`.toUpperCase(),
      bank: { name: provider.bank_name, id: provider.bank_id, slug: provider.provider_slug },
      createdAt: new Date().toISOString(),
    };
    this.accounts.push(account);
    return ok('NUBAN successfully created', this.accountData(account));
  }

  listDedicatedAccounts(query: URLSearchParams): Answer {
    const customer = query.get('customer');
    const rows = this.accounts.filter(
      (a) => customer === null || String(a.customerId) === customer,
    );
    const data = rows.map((a) => {
      const { assignment: _assignment, metadata: _metadata, ...row } = this.accountData(a);
      return { ...row, split_config: null };
    });
    return ok('Managed accounts successfully retrieved', data, {
      total: data.length,
      skipped: 0,
      perPage: 50,
      page: 1,
      pageCount: 1,
    });
  }

  verifyTransaction(reference: string): Answer {
    const charge = this.charges.find((c) => c.reference === reference);
    const disagreement = this.disagreements.get(reference);
    if (!charge || disagreement === 'unknown') {
      return refusal(404, 'Transaction reference not found', 'transaction_not_found');
    }
    return ok('Verification successful', verifyData({ ...charge, ...disagreement }));
  }

  listTransactions(query: URLSearchParams): Answer {
    const perPage = Number(query.get('perPage') ?? query.get('per_page') ?? 50);
    const page = Number(query.get('page') ?? 1);
    const from = query.get('from');
    const to = query.get('to');
    const rows = this.charges
      .filter((c) => !query.get('status') || c.status === query.get('status'))
      .filter((c) => !query.get('channel') || c.channel === query.get('channel'))
      .filter((c) => !from || c.paidAt >= new Date(from).toISOString())
      .filter((c) => !to || c.paidAt <= new Date(to).toISOString())
      .sort((a, b) => b.paidAt.localeCompare(a.paidAt));
    const data = rows.slice((page - 1) * perPage, page * perPage).map((charge) => {
      const entry = verifyData(charge);
      if (this.listWithoutReceiver)
        delete (entry.authorization as Json).receiver_bank_account_number;
      return entry;
    });
    return ok('Transactions retrieved', data, {
      total: rows.length,
      total_volume: 0,
      skipped: (page - 1) * perPage,
      perPage,
      page,
      pageCount: Math.max(1, Math.ceil(rows.length / perPage)),
    });
  }

  /** Cursor paging as PS-SNIP api/miscellaneous/bank/response.json shows (`meta.next`). */
  listBanks(query: URLSearchParams): Answer {
    const perPage = Number(query.get('perPage') ?? 50);
    const start = Number(Buffer.from(query.get('next') ?? '', 'base64').toString() || 0);
    const data = SAMPLE_BANKS.slice(start, start + perPage);
    const more = start + perPage < SAMPLE_BANKS.length;
    const next = more ? Buffer.from(String(start + perPage)).toString('base64') : null;
    return ok('Banks retrieved', data, { next, previous: null, perPage });
  }
}
