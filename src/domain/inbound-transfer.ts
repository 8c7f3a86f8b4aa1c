import { invalidParameter, missingParameter } from './errors';
import { dec, isDecimalString } from './money';

/** One inbound NGN transfer, from the bank adapter or the sandbox. */
export interface InboundTransfer {
  accountNumber: string;
  amountNgn: string;
  bankReference: string;
  senderName?: string | null;
  senderAccount?: string | null;
  senderBank?: string | null;
  /** When the bank says the transfer happened; later than now is taken as now. */
  transferredAt?: Date | null;
}

const BANK_REFERENCE = /^[\x21-\x7e]{1,128}$/;
const ACCOUNT_NUMBER = /^[0-9]{10}$/;
/** 100 billion NGN: far above any real transfer, well inside numeric(20, 2). */
const MAX_AMOUNT_NGN = dec('100000000000');
const SENDER_FIELD_MAX = 200;

/** Validates a transfer's fields; amounts are exact decimal strings with at most 2 places. */
export function parseInboundTransfer(input: InboundTransfer): InboundTransfer {
  if (!input.accountNumber) throw missingParameter('account_number');
  if (!ACCOUNT_NUMBER.test(input.accountNumber)) {
    throw invalidParameter('account_number', 'must be a 10-digit NUBAN');
  }
  if (input.amountNgn === undefined || input.amountNgn === null || input.amountNgn === '') {
    throw missingParameter('amount_ngn');
  }
  if (!isDecimalString(input.amountNgn, 2) || dec(input.amountNgn).lte(0)) {
    throw invalidParameter('amount_ngn', 'must be a positive decimal with at most 2 places');
  }
  if (dec(input.amountNgn).gt(MAX_AMOUNT_NGN)) {
    throw invalidParameter('amount_ngn', `must not exceed ${MAX_AMOUNT_NGN.toFixed()}`);
  }
  if (!input.bankReference) throw missingParameter('bank_reference');
  if (!BANK_REFERENCE.test(input.bankReference)) {
    throw invalidParameter('bank_reference', 'must be 1-128 visible ASCII characters');
  }
  for (const [name, value] of [
    ['sender_name', input.senderName],
    ['sender_account', input.senderAccount],
    ['sender_bank', input.senderBank],
  ] as const) {
    if (value !== undefined && value !== null && value.length > SENDER_FIELD_MAX) {
      throw invalidParameter(name, `must be at most ${SENDER_FIELD_MAX} characters`);
    }
  }
  return { ...input, amountNgn: dec(input.amountNgn).toFixed(2) };
}
