// The stand-in's two writes: reserving an account (POST /api/v2/bank-transfer/reserved-accounts)
// and a single disbursement (POST /api/v2/disbursements/single), checked as Monnify's docs and
// official SDKs' validators check them (MN-NODE validators/*.js), refusals in its envelope.
import { randomBytes } from 'node:crypto';
import {
  ok,
  refusal,
  reservedAccountView,
  type StandInReservedAccount,
  type StandInState,
} from './monnify-stand-in-documents';

type Answer = readonly [number, unknown];
type Body = Record<string, unknown>;

const isBody = (value: unknown): value is Body =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (body: Body, name: string) =>
  typeof body[name] === 'string' ? (body[name] as string) : '';
const ELEVEN_DIGITS = /^[0-9]{11}$/;

export function handleReserve(state: StandInState, body: unknown): Answer {
  if (!isBody(body)) return [400, refusal('Request body is required')];
  for (const name of ['accountReference', 'accountName', 'customerEmail', 'customerName']) {
    if (!text(body, name)) return [400, refusal(`${name} is required`)];
  }
  if (text(body, 'customerName').length < 3) {
    return [400, refusal('customerName must be at least 3 characters')];
  }
  if (body.currencyCode !== 'NGN') return [400, refusal('currencyCode must be NGN')];
  if (body.contractCode !== state.contractCode) return [400, refusal('Invalid contract code')];
  const bvn = text(body, 'bvn');
  const nin = text(body, 'nin');
  if ((bvn && !ELEVEN_DIGITS.test(bvn)) || (nin && !ELEVEN_DIGITS.test(nin)) || (!bvn && !nin)) {
    return [400, refusal('A valid 11-digit bvn or nin is required')];
  }
  const reference = text(body, 'accountReference');
  if (state.reserved.has(reference)) {
    // Monnify's wording for this is not documented (docs/providers-monnify.md).
    return [400, refusal('You can not reserve two accounts with the same reference')];
  }
  let banks = state.banks;
  if (body.getAllAvailableBanks === false) {
    const preferred = Array.isArray(body.preferredBanks) ? (body.preferredBanks as unknown[]) : [];
    if (preferred.length === 0) {
      return [400, refusal('preferredBanks is required when getAllAvailableBanks is false')];
    }
    banks = state.banks.filter((bank) => preferred.includes(bank.bankCode));
    if (banks.length !== preferred.length) return [400, refusal('Invalid preferred bank code')];
  }
  const account: StandInReservedAccount = {
    accountReference: reference,
    accountName: text(body, 'accountName'),
    customerEmail: text(body, 'customerEmail'),
    customerName: text(body, 'customerName'),
    ...(bvn ? { bvn } : {}),
    ...(nin ? { nin } : {}),
    createdAt: new Date(),
    accounts: banks.map((bank) => ({ ...bank, accountNumber: state.nextNumber() })),
  };
  state.reserved.set(reference, account);
  return [200, ok(reservedAccountView(account, state.contractCode))];
}

export function handleDisbursement(state: StandInState, body: unknown): Answer {
  if (!isBody(body)) return [400, refusal('Request body is required')];
  const amount = body.amount;
  if (typeof amount !== 'number' || !(amount > 0) || Math.round(amount * 100) !== amount * 100) {
    return [400, refusal('amount must be a positive number with at most 2 decimal places')];
  }
  for (const name of ['reference', 'narration', 'destinationAccountName']) {
    if (!text(body, name)) return [400, refusal(`${name} is required`)];
  }
  if (!/^[0-9]{3,6}$/.test(text(body, 'destinationBankCode'))) {
    return [400, refusal('destinationBankCode must be a bank code')];
  }
  if (!/^[0-9]{10}$/.test(text(body, 'destinationAccountNumber'))) {
    return [400, refusal('destinationAccountNumber must be 10 digits')];
  }
  if (body.currency !== 'NGN') return [400, refusal('currency must be NGN')];
  if (body.sourceAccountNumber !== state.sourceAccount) {
    return [400, refusal('Invalid source account number')];
  }
  const reference = text(body, 'reference');
  if (state.disbursements.has(reference)) {
    // Monnify's wording for this is not documented either.
    return [400, refusal('Duplicate reference: a transfer with this reference exists')];
  }
  const createdAt = new Date();
  const disbursement = {
    reference,
    transactionReference: `MFDS${randomBytes(8).toString('hex').toUpperCase()}`,
    amount,
    narration: text(body, 'narration'),
    destinationBankCode: text(body, 'destinationBankCode'),
    destinationAccountNumber: text(body, 'destinationAccountNumber'),
    destinationAccountName: text(body, 'destinationAccountName'),
    status: state.disbursementStatus,
    description: 'Transfer is being processed',
    createdAt,
    completedAt: null,
  };
  state.disbursements.set(reference, disbursement);
  return [
    200,
    ok({
      amount,
      reference,
      status: disbursement.status,
      dateCreated: createdAt.toISOString().replace('Z', '+0000'),
      totalFee: 10,
      destinationAccountName: disbursement.destinationAccountName,
      destinationBankName: 'Stand-in bank',
      destinationAccountNumber: disbursement.destinationAccountNumber,
      destinationBankCode: disbursement.destinationBankCode,
    }),
  ];
}
