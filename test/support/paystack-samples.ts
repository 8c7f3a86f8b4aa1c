// Paystack's documented sample payloads, with only the values a test chooses replaced. Sources
// (commit-pinned in /work/shared/research/providers.md section 1):
//   PS-SNIP = github.com/PaystackOSS/doc-code-snippets @94af513 dist/
//   PS-OAS  = github.com/PaystackOSS/openapi @9678dea src/assets/openapi/
import { createHmac } from 'node:crypto';

export type Json = Record<string, unknown>;

/** A transaction into a dedicated account, as the stand-in stores it. */
export interface SampleCharge {
  id: number;
  reference: string;
  /** Kobo; a test may put any JSON value here to build a hostile body. */
  amount: unknown;
  currency: string;
  status: string;
  channel: string;
  paidAt: string;
  receiverAccount: unknown;
  receiverBank: string;
  senderName: string;
  senderBank: string;
  senderAccount: string;
  customer: SampleCustomer;
}

export interface SampleCustomer {
  id: number;
  customer_code: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
}

export const SAMPLE_CUSTOMER: SampleCustomer = {
  id: 68324,
  first_name: 'BoJack',
  last_name: 'Horseman',
  email: 'bojack@horseman.com',
  customer_code: 'CUS_qo38as2hpsgk2r0',
  phone: null,
};

/** The documented values of a DVA charge (PS-SNIP events.js + DVA event-snippet.js). */
export function sampleCharge(changes: Partial<SampleCharge> = {}): SampleCharge {
  return {
    id: 302961,
    reference: 'qTPrJoy9Bx',
    amount: 10000,
    currency: 'NGN',
    status: 'success',
    channel: 'dedicated_nuban',
    paidAt: '2016-09-30T21:10:19.000Z',
    receiverAccount: '9930000902',
    receiverBank: 'Wema Bank',
    senderName: 'RANDALL AKANBI HORTON',
    senderBank: 'First City Monument Bank',
    senderAccount: 'XXXXXX0011',
    customer: SAMPLE_CUSTOMER,
    ...changes,
  };
}

/** `data.authorization` of a DVA payment: PS-SNIP doc/payments/dedicated-virtual-account/event-snippet.js. */
function dedicatedAuthorization(charge: SampleCharge): Json {
  return {
    authorization_code: 'AUTH_0ozsafcpdf',
    bin: '413XXX',
    last4: 'X011',
    exp_month: '01',
    exp_year: '2020',
    channel: 'dedicated_nuban',
    card_type: 'transfer',
    bank: charge.senderBank,
    country_code: 'NG',
    brand: 'Managed Account',
    reusable: false,
    signature: null,
    sender_bank: charge.senderBank,
    sender_bank_account_number: charge.senderAccount,
    sender_country: 'NG',
    sender_name: charge.senderName,
    narration: 'NIP: RHODA CHURCH -1123344343/44343231232',
    receiver_bank_account_number: charge.receiverAccount,
    receiver_bank: charge.receiverBank,
  };
}

/**
 * `charge.success`'s `data`: PS-SNIP doc/payments/webhooks/events.js `transaction_successful`
 * (a card payment) with the DVA guide's authorization object and channel (the guide shows
 * only that object: https://paystack.com/docs/payments/dedicated-virtual-accounts/).
 */
export function chargeSuccessData(charge: SampleCharge): Json {
  return {
    id: charge.id,
    domain: 'live',
    status: charge.status,
    reference: charge.reference,
    amount: charge.amount,
    message: null,
    gateway_response: 'Approved',
    paid_at: charge.paidAt,
    created_at: charge.paidAt,
    channel: charge.channel,
    currency: charge.currency,
    ip_address: null,
    metadata: 0,
    log: null,
    fees: null,
    customer: { ...charge.customer, metadata: null, risk_action: 'default' },
    authorization: dedicatedAuthorization(charge),
    plan: {},
  };
}

/** `GET /transaction/verify/{reference}` and list entries: PS-SNIP api/transactions/verify/response.json. */
export function verifyData(charge: SampleCharge): Json {
  return {
    id: charge.id,
    domain: 'test',
    status: charge.status,
    reference: charge.reference,
    receipt_number: null,
    amount: charge.amount,
    message: null,
    gateway_response: 'Approved',
    paid_at: charge.paidAt,
    created_at: charge.paidAt,
    channel: charge.channel,
    currency: charge.currency,
    ip_address: null,
    metadata: '',
    log: null,
    fees: 10283,
    fees_split: null,
    authorization: dedicatedAuthorization(charge),
    customer: {
      ...charge.customer,
      metadata: null,
      risk_action: 'default',
      international_format_phone: null,
    },
    plan: null,
    split: {},
    order_id: null,
    paidAt: charge.paidAt,
    createdAt: charge.paidAt,
    requested_amount: charge.amount,
    pos_transaction_data: null,
    source: null,
    fees_breakdown: null,
    connect: null,
    transaction_date: charge.paidAt,
    plan_object: {},
    subaccount: {},
  };
}

export interface SampleTransfer {
  id: number;
  transferCode: string;
  reference: string;
  amount: number;
  status: string;
  reason: string;
  recipientCode: string;
  recipientName: string;
  accountNumber: string;
  bankCode: string;
  bankName: string;
  createdAt: string;
  transferredAt: string | null;
}

/**
 * A transfer (verify answer and `transfer.*` notification `data`): PS-SNIP
 * doc/payments/webhooks/events.js `transfer_successful` / api/transfers/verify/response.json.
 */
export function transferData(transfer: SampleTransfer): Json {
  return {
    amount: transfer.amount,
    createdAt: transfer.createdAt,
    currency: 'NGN',
    domain: 'test',
    failures: null,
    id: transfer.id,
    integration: { id: 463433, is_live: true, business_name: 'Paystack Demo' },
    reason: transfer.reason,
    reference: transfer.reference,
    source: 'balance',
    source_details: null,
    status: transfer.status,
    titan_code: null,
    transfer_code: transfer.transferCode,
    transferred_at: transfer.transferredAt,
    updatedAt: transfer.createdAt,
    recipient: {
      active: true,
      createdAt: transfer.createdAt,
      currency: 'NGN',
      description: '',
      domain: 'test',
      email: null,
      id: 56824902,
      integration: 463433,
      metadata: null,
      name: transfer.recipientName,
      recipient_code: transfer.recipientCode,
      type: 'nuban',
      updatedAt: transfer.createdAt,
      is_deleted: false,
      details: {
        authorization_code: null,
        account_number: transfer.accountNumber,
        account_name: null,
        bank_code: transfer.bankCode,
        bank_name: transfer.bankName,
      },
    },
    session: { provider: null, id: null },
    fee_charged: 0,
    gateway_response: null,
  };
}

/**
 * Nigerian banks for `GET /bank`: Wema Bank as in PS-SNIP api/miscellaneous/providers (id 20,
 * code 035, the id the DVA samples' `bank.id` carries), Access Bank as in the DVA providers
 * sample (bank_id 1) and the transfer sample (044), First Bank (011) and GTBank (058) as in the
 * transfer and recipient samples, two of PS-SNIP api/miscellaneous/bank/response.json; First
 * City Monument Bank (214, the sender bank of the DVA sample) with a stand-in id.
 */
export const SAMPLE_BANKS = [
  { name: 'Wema Bank', slug: 'wema-bank', code: '035', id: 20 },
  { name: 'Access Bank', slug: 'access-bank', code: '044', id: 1 },
  { name: 'First Bank of Nigeria', slug: 'first-bank-of-nigeria', code: '011', id: 7 },
  { name: 'Guaranty Trust Bank', slug: 'guaranty-trust-bank', code: '058', id: 9 },
  { name: 'First City Monument Bank', slug: 'first-city-monument-bank', code: '214', id: 6 },
  { name: 'Abbey Mortgage Bank', slug: 'abbey-mortgage-bank', code: '801', id: 174 },
  { name: 'Infinity MFB', slug: 'infinity-mfb', code: '50457', id: 172 },
].map((bank) => ({
  ...bank,
  longcode: '',
  gateway: null,
  pay_with_bank: false,
  active: true,
  is_deleted: false,
  country: 'Nigeria',
  currency: 'NGN',
  type: 'nuban',
  createdAt: '2016-07-14T10:04:29.000Z',
  updatedAt: '2020-12-07T16:19:19.000Z',
}));

/** `GET /dedicated_account/available_providers`: PS-SNIP api/dedicated-virtual-account/providers/response.json. */
export const SAMPLE_PROVIDERS = [
  { provider_slug: 'access-bank', bank_id: 1, bank_name: 'Access Bank', id: 6 },
  { provider_slug: 'wema-bank', bank_id: 20, bank_name: 'Wema Bank', id: 5 },
];

/** A notification as Paystack posts it: the raw body and its headers. */
export interface SignedNotification {
  rawBody: string;
  headers: Record<string, string>;
}

/** `x-paystack-signature` = hex HMAC-SHA512(secret key, raw body), written independently of src/. */
export function signPaystack(secretKey: string, rawBody: string | Buffer): string {
  return createHmac('sha512', secretKey).update(rawBody).digest('hex');
}

export function signedNotification(
  secretKey: string,
  event: string,
  data: unknown,
): SignedNotification {
  const rawBody = JSON.stringify({ event, data });
  return {
    rawBody,
    headers: {
      'content-type': 'application/json',
      'x-paystack-signature': signPaystack(secretKey, rawBody),
    },
  };
}
