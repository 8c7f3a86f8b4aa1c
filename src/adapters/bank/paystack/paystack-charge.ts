import type { InboundTransfer } from '../../../domain/inbound-transfer';
import { BankPayloadError } from '../bank-adapter';
import {
  fullAccountNumber,
  isObject,
  isoDate,
  koboToNgn,
  stringField,
  type Json,
} from './paystack-json';

/** Paystack's channel for a bank transfer into a dedicated virtual account. */
export const DEDICATED_NUBAN = 'dedicated_nuban';

/**
 * Whether a transaction object (a `charge.success` notification's `data`, a verify answer, a
 * list entry) is a transfer into a dedicated account: `channel` says so, or, where the
 * top-level channel is absent, `authorization.channel` does (the DVA guide's sample shows only
 * the authorization object).
 */
export function isDedicatedNuban(data: Json): boolean {
  if (data.channel === DEDICATED_NUBAN) return true;
  const authorization = data.authorization;
  return (
    (data.channel === undefined || data.channel === null) &&
    isObject(authorization) &&
    authorization.channel === DEDICATED_NUBAN
  );
}

function optionalText(data: Json, field: string, path: string): string | null {
  const value = stringField(data, field);
  if (value === undefined) throw BankPayloadError.invalid(`${path}.${field}`, 'must be a string');
  return value;
}

/**
 * A successful NGN transfer into one of our dedicated accounts, in our vocabulary, from
 * Paystack's transaction object (the same shape in `charge.success`, `GET
 * /transaction/verify/{reference}` and `GET /transaction`). Throws BankPayloadError naming the
 * field when it is not one:
 * - `status` must be `success`, `currency` `NGN`;
 * - `amount` is an integer number of kobo, converted exactly (1000050 → "10000.50");
 * - the credited account is `authorization.receiver_bank_account_number`, 10 digits;
 * - the payer: `authorization.sender_name` / `sender_bank`, and `sender_bank_account_number`
 *   only when it is a full 10-digit number (Paystack's samples mask it: `XXXXXX0011`).
 */
export function dedicatedChargeTransfer(data: Json, path = 'data'): InboundTransfer {
  const status = data.status;
  if (status !== 'success') {
    throw BankPayloadError.invalid(`${path}.status`, `must be success, not ${String(status)}`);
  }
  const reference = stringField(data, 'reference');
  if (reference === null) throw BankPayloadError.missing(`${path}.reference`);
  if (reference === undefined) {
    throw BankPayloadError.invalid(`${path}.reference`, 'must be a string');
  }
  if (data.amount === undefined || data.amount === null) {
    throw BankPayloadError.missing(`${path}.amount`);
  }
  const amountNgn = koboToNgn(data.amount);
  if (amountNgn === null) {
    throw BankPayloadError.invalid(
      `${path}.amount`,
      'must be a positive whole number of kobo (a JSON integer below 2^53)',
    );
  }
  const currency = stringField(data, 'currency');
  if (currency === null) throw BankPayloadError.missing(`${path}.currency`);
  if (currency !== 'NGN') throw BankPayloadError.invalid(`${path}.currency`, 'must be NGN');

  const authorization = data.authorization;
  if (authorization === undefined || authorization === null) {
    throw BankPayloadError.missing(`${path}.authorization`);
  }
  if (!isObject(authorization)) {
    throw BankPayloadError.invalid(`${path}.authorization`, 'must be a JSON object');
  }
  const where = `${path}.authorization`;
  const receiver = authorization.receiver_bank_account_number;
  if (receiver === undefined || receiver === null || receiver === '') {
    throw BankPayloadError.missing(`${where}.receiver_bank_account_number`);
  }
  const accountNumber = fullAccountNumber(receiver);
  if (accountNumber === null) {
    throw BankPayloadError.invalid(
      `${where}.receiver_bank_account_number`,
      'must be a 10-digit account number (NUBAN)',
    );
  }
  const sender = optionalText(authorization, 'sender_bank_account_number', where);

  const paidAtText = optionalText(data, 'paid_at', path);
  const paidAt = paidAtText === null ? undefined : isoDate(paidAtText);
  if (paidAtText !== null && paidAt === undefined) {
    throw BankPayloadError.invalid(`${path}.paid_at`, 'must be an ISO 8601 date-time');
  }
  return {
    accountNumber,
    amountNgn,
    bankReference: reference,
    senderName: optionalText(authorization, 'sender_name', where),
    senderAccount: fullAccountNumber(sender),
    senderBank: optionalText(authorization, 'sender_bank', where),
    ...(paidAt ? { transferredAt: paidAt } : {}),
  };
}
