// The documents Monnify's API and notifications carry, built in the shapes of its published
// samples (docs/providers-monnify.md names each page): the stand-in answers with these, and
// tests sign notifications built here.
import { signMonnifyBody } from '../../src/adapters/bank/monnify/monnify-signature';

export interface StandInReservedAccount {
  accountReference: string;
  accountName: string;
  customerEmail: string;
  customerName: string;
  bvn?: string;
  nin?: string;
  createdAt: Date;
  accounts: { bankCode: string; bankName: string; accountNumber: string }[];
}

export interface StandInTransaction {
  transactionReference: string;
  accountReference: string;
  account: { bankCode: string; bankName: string; accountNumber: string };
  /** Naira, 2-place decimal string. */
  amount: string;
  paidAt: Date;
  paymentStatus: string;
  sender: { accountNumber: string; bankCode: string; accountName: string };
  customer: { name: string; email: string };
  sessionId: string;
  /** Fields the status and search answers show instead of the truth (`disagree`). */
  overrides: Record<string, unknown>;
}

export interface StandInDisbursement {
  reference: string;
  transactionReference: string;
  amount: number;
  narration: string;
  destinationBankCode: string;
  destinationAccountNumber: string;
  destinationAccountName: string;
  status: string;
  description: string;
  createdAt: Date;
  completedAt: Date | null;
}

/** What the stand-in holds; its request handlers (monnify-stand-in-writes.ts) change it. */
export interface StandInState {
  apiKey: string;
  secretKey: string;
  contractCode: string;
  sourceAccount: string;
  banks: { bankCode: string; bankName: string }[];
  reserved: Map<string, StandInReservedAccount>;
  transactions: Map<string, StandInTransaction>;
  disbursements: Map<string, StandInDisbursement>;
  /** The status a new disbursement answers with (`PENDING` with `async: true`). */
  disbursementStatus: string;
  nextNumber: () => string;
}

/** Monnify's answer envelope. */
export const ok = (responseBody: unknown) => ({
  requestSuccessful: true,
  responseMessage: 'success',
  responseCode: '0',
  responseBody,
});

export const refusal = (responseMessage: string, responseCode = '99') => ({
  requestSuccessful: false,
  responseMessage,
  responseCode,
});

const pad = (value: number, width = 2) => String(value).padStart(width, '0');
/** Lagos wall-clock parts of an instant (UTC+01:00 all year). */
const lagos = (at: Date) => new Date(at.getTime() + 3_600_000);

/** `2021-11-17 11:28:42.615`: the notification's `paidOn` (MN-EVT). */
export function dashTime(at: Date): string {
  const l = lagos(at);
  return `${l.getUTCFullYear()}-${pad(l.getUTCMonth() + 1)}-${pad(l.getUTCDate())} ${pad(l.getUTCHours())}:${pad(l.getUTCMinutes())}:${pad(l.getUTCSeconds())}.${pad(l.getUTCMilliseconds(), 3)}`;
}

/** `26/02/2020 09:38:13 AM`: the status answer's `paidOn`, disbursements' `createdOn`. */
export function slashTime(at: Date): string {
  const l = lagos(at);
  const hours = l.getUTCHours();
  return `${pad(l.getUTCDate())}/${pad(l.getUTCMonth() + 1)}/${l.getUTCFullYear()} ${pad(hours % 12 || 12)}:${pad(l.getUTCMinutes())}:${pad(l.getUTCSeconds())} ${hours < 12 ? 'AM' : 'PM'}`;
}

export function reservedAccountView(account: StandInReservedAccount, contractCode: string) {
  return {
    contractCode,
    accountReference: account.accountReference,
    accountName: account.accountName,
    currencyCode: 'NGN',
    customerEmail: account.customerEmail,
    customerName: account.customerName,
    accounts: account.accounts.map((entry) => ({ ...entry, accountName: account.accountName })),
    collectionChannel: 'RESERVED_ACCOUNT',
    reservationReference: `RES${account.accountReference.slice(-12).toUpperCase()}`,
    reservedAccountType: 'GENERAL',
    status: 'ACTIVE',
    createdOn: dashTime(account.createdAt),
    incomeSplitConfig: [],
    ...(account.bvn ? { bvn: account.bvn } : {}),
    ...(account.nin ? { nin: account.nin } : {}),
    restrictPaymentSource: false,
  };
}

/** The status and search answers' item (MN-WIKI pages/213909851): payer masked, no destination. */
export function transactionView(tx: StandInTransaction) {
  const payer = {
    accountName: tx.sender.accountName,
    accountNumber: `******${tx.sender.accountNumber.slice(-4)}`,
    bankCode: tx.sender.bankCode,
    amountPaid: tx.amount,
  };
  return {
    transactionReference: tx.transactionReference,
    paymentReference: tx.transactionReference,
    amountPaid: tx.amount,
    totalPayable: tx.amount,
    settlementAmount: (Number(tx.amount) - 10).toFixed(2),
    paidOn: slashTime(tx.paidAt),
    paymentStatus: tx.paymentStatus,
    paymentDescription: tx.customer.name,
    currency: 'NGN',
    paymentMethod: 'ACCOUNT_TRANSFER',
    product: { type: 'RESERVED_ACCOUNT', reference: tx.accountReference },
    cardDetails: null,
    accountDetails: payer,
    accountPayments: [payer],
    customer: { email: tx.customer.email, name: tx.customer.name },
    metaData: {},
    ...tx.overrides,
  };
}

/**
 * One page of `GET /api/v1/transactions/search` (`from`/`to` in Unix ms, MN-PY), newest first,
 * in the Spring page shape of Monnify's list answers (its settlement-transactions sample).
 */
export function searchPage(transactions: StandInTransaction[], query: URLSearchParams) {
  const page = Number(query.get('page') ?? 0);
  const size = Number(query.get('size') ?? 10);
  const from = Number(query.get('from') ?? 0);
  const to = Number(query.get('to') ?? Number.MAX_SAFE_INTEGER);
  const matching = transactions
    .filter((tx) => tx.paidAt.getTime() >= from && tx.paidAt.getTime() <= to)
    .sort((a, b) => b.paidAt.getTime() - a.paidAt.getTime());
  const content = matching.slice(page * size, (page + 1) * size).map(transactionView);
  const totalPages = Math.ceil(matching.length / size);
  return {
    content,
    pageable: null,
    last: page + 1 >= totalPages,
    totalElements: matching.length,
    totalPages,
    sort: null,
    first: page === 0,
    numberOfElements: content.length,
    size,
    number: page,
    empty: content.length === 0,
  };
}

/** MN-EVT "Successful Collection" for a reserved account; the amount a JSON number or string. */
export function successfulTransactionEvent(tx: StandInTransaction, amountAs: 'number' | 'string') {
  const amount = amountAs === 'number' ? Number(tx.amount) : tx.amount;
  return {
    eventType: 'SUCCESSFUL_TRANSACTION',
    eventData: {
      product: { reference: tx.accountReference, type: 'RESERVED_ACCOUNT' },
      transactionReference: tx.transactionReference,
      paymentReference: tx.transactionReference,
      paidOn: dashTime(tx.paidAt),
      paymentDescription: tx.customer.name,
      metaData: {},
      paymentSourceInformation: [
        {
          bankCode: tx.sender.bankCode,
          amountPaid: amount,
          accountName: tx.sender.accountName,
          sessionId: tx.sessionId,
          accountNumber: tx.sender.accountNumber,
        },
      ],
      destinationAccountInformation: tx.account,
      amountPaid: amount,
      totalPayable: amount,
      cardDetails: {},
      paymentMethod: 'ACCOUNT_TRANSFER',
      currency: 'NGN',
      settlementAmount: (Number(tx.amount) - 10).toFixed(2),
      paymentStatus: 'PAID',
      customer: tx.customer,
    },
  };
}

/** The summary answer (MN-WIKI pages/223149924). */
export function disbursementView(d: StandInDisbursement) {
  return {
    amount: d.amount,
    reference: d.reference,
    narration: d.narration,
    currency: 'NGN',
    fee: 10,
    twoFaEnabled: false,
    status: d.status,
    transactionDescription: d.description,
    transactionReference: d.transactionReference,
    destinationBankCode: d.destinationBankCode,
    destinationAccountNumber: d.destinationAccountNumber,
    destinationAccountName: d.destinationAccountName,
    destinationBankName: 'Stand-in bank',
    createdOn: slashTime(d.createdAt),
  };
}

const DISBURSEMENT_EVENTS: Record<string, string> = {
  SUCCESS: 'SUCCESSFUL_DISBURSEMENT',
  FAILED: 'FAILED_DISBURSEMENT',
  REVERSED: 'REVERSED_DISBURSEMENT',
};

/** MN-EVT "Successful / Failed / Reversed Disbursement". */
export function disbursementEvent(d: StandInDisbursement) {
  return {
    eventType: DISBURSEMENT_EVENTS[d.status],
    eventData: {
      amount: d.amount,
      transactionReference: d.transactionReference,
      fee: 10,
      transactionDescription: d.description,
      destinationAccountNumber: d.destinationAccountNumber,
      sessionId: `0904052${d.transactionReference.replace(/[^0-9]/g, '').padEnd(23, '0')}`,
      createdOn: slashTime(d.createdAt),
      destinationAccountName: d.destinationAccountName,
      reference: d.reference,
      destinationBankCode: d.destinationBankCode,
      completedOn: slashTime(d.completedAt ?? d.createdAt),
      narration: d.narration,
      currency: 'NGN',
      destinationBankName: 'Stand-in bank',
      status: d.status,
    },
  };
}

/** A notification as Monnify posts it: the compact JSON bytes and the `monnify-signature`. */
export interface SignedNotification {
  rawBody: string;
  headers: Record<string, string>;
}

export function signedNotification(secretKey: string, event: unknown): SignedNotification {
  const rawBody = JSON.stringify(event);
  return {
    rawBody,
    headers: {
      'content-type': 'application/json',
      'monnify-signature': signMonnifyBody(secretKey, rawBody),
    },
  };
}
