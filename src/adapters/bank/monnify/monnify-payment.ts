import type { InboundTransfer } from '../../../domain/inbound-transfer';
import { isJsonObject, type JsonValue } from './exact-json';
import {
  bankCode,
  field,
  fullAccountNumber,
  monnifyTime,
  nairaAmount,
  objectField,
  stringField,
  textField,
  type JsonObject,
} from './monnify-values';

/**
 * One collection as Monnify describes it, in the three places it does: the
 * `SUCCESSFUL_TRANSACTION` notification's `eventData` (MN-EVT), the transaction status answer
 * (`GET /api/v2/transactions/{ref}`, MN-WIKI pages/213909851) and each `content[]` item of the
 * transaction search (`GET /api/v1/transactions/search`, MN-PY). Only the notification names
 * the reserved account paid (`destinationAccountInformation`); the other two name its
 * `accountReference` (`product.reference`) and mask the payer's account number.
 */
export interface MonnifyPayment {
  transactionReference: string;
  /** Naira, 2-place decimal string, read exactly. */
  amountNgn: string;
  currency: string | null;
  paymentStatus: string | null;
  productType: string | null;
  /** For a reserved account: its `accountReference` (ours: the onramp id). */
  productReference: string | null;
  /** The reserved account number paid, when the document names it. */
  destinationAccount: string | null;
  paidAt: Date | null;
  senderName: string | null;
  /** The payer's full 10-digit account number (null when absent or masked). */
  senderAccount: string | null;
  /** The last 4 digits the payer's account number shows, masked or not. */
  senderAccountLast4: string | null;
  senderBank: string | null;
}

/** A field of a Monnify document is missing or not what its documentation says. */
export class PaymentFieldError extends Error {
  override readonly name = 'PaymentFieldError';
  constructor(
    readonly field: string,
    readonly missing: boolean,
    why: string,
  ) {
    super(`${field}: ${why}`);
  }
}

const REFERENCE = /^[\x21-\x7e]{1,128}$/;
const LAST_FOUR = /([0-9]{4})$/;

/** The payer: `paymentSourceInformation` is an array in MN-EVT, `{}` in offline payments. */
function payerOf(data: JsonObject): JsonObject | null {
  for (const name of ['paymentSourceInformation', 'accountPayments', 'accountDetails']) {
    const value = field(data, name);
    const first: JsonValue | undefined = Array.isArray(value) ? value[0] : value;
    if (isJsonObject(first) && Object.keys(first).length > 0) return first;
  }
  return null;
}

/** Reads a payment; `path` names the object in errors (e.g. `eventData`). */
export function readPayment(data: JsonObject, path: string): MonnifyPayment {
  const transactionReference = stringField(data, 'transactionReference');
  if (!transactionReference) {
    throw new PaymentFieldError(`${path}.transactionReference`, true, 'is required');
  }
  if (!REFERENCE.test(transactionReference)) {
    throw new PaymentFieldError(
      `${path}.transactionReference`,
      false,
      'must be 1-128 visible ASCII characters',
    );
  }
  const amountValue = field(data, 'amountPaid');
  if (amountValue === undefined || amountValue === null || amountValue === '') {
    throw new PaymentFieldError(`${path}.amountPaid`, true, 'is required');
  }
  const amountNgn = nairaAmount(amountValue);
  if (amountNgn === null) {
    throw new PaymentFieldError(
      `${path}.amountPaid`,
      false,
      'must be a positive naira amount with at most 2 decimal places',
    );
  }
  const destination = objectField(data, 'destinationAccountInformation');
  const destinationValue = destination ? field(destination, 'accountNumber') : undefined;
  const destinationAccount = fullAccountNumber(destinationValue);
  const named =
    destinationValue !== undefined && destinationValue !== null && destinationValue !== '';
  if (named && destinationAccount === null) {
    throw new PaymentFieldError(
      `${path}.destinationAccountInformation.accountNumber`,
      false,
      'must be a 10-digit account number',
    );
  }
  const product = objectField(data, 'product');
  const payer = payerOf(data);
  const payerAccount = payer ? stringField(payer, 'accountNumber') : null;
  return {
    transactionReference,
    amountNgn,
    currency: stringField(data, 'currency') ?? stringField(data, 'currencyCode'),
    paymentStatus: stringField(data, 'paymentStatus'),
    productType: product ? stringField(product, 'type') : null,
    productReference: product ? stringField(product, 'reference') : null,
    destinationAccount,
    paidAt: monnifyTime(field(data, 'paidOn')),
    senderName: payer ? textField(payer, 'accountName') : null,
    senderAccount: fullAccountNumber(payerAccount ?? undefined),
    senderAccountLast4: payerAccount ? (LAST_FOUR.exec(payerAccount)?.[1] ?? null) : null,
    senderBank: payer ? bankCode(field(payer, 'bankCode')) : null,
  };
}

/** Monnify's word for a collection whose money arrived in full. */
export function isPaid(status: string | null): boolean {
  // OVERPAID is money received too (more than an invoice asked); a reserved account has no
  // expected amount, so Monnify documents PAID for it (MN-WIKI pages/213909300).
  return status === 'PAID' || status === 'OVERPAID';
}

export function inboundTransfer(payment: MonnifyPayment, accountNumber: string): InboundTransfer {
  return {
    accountNumber,
    amountNgn: payment.amountNgn,
    bankReference: payment.transactionReference,
    senderName: payment.senderName,
    senderAccount: payment.senderAccount,
    senderBank: payment.senderBank,
    ...(payment.paidAt ? { transferredAt: payment.paidAt } : {}),
  };
}
