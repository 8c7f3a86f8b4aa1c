import { dec, isDecimalString } from '../../../domain/money';
import { ProviderUnavailableError } from '../bank-provider';
import type { BankTransfers, OutboundReturn, ReturnOutcome } from '../bank-transfers';
import { MonnifyRefusal, type MonnifyApi } from './monnify-api';
import {
  isAccountNumber,
  isBankCode,
  stringField,
  textField,
  type JsonObject,
} from './monnify-values';

/**
 * Disbursement statuses (https://developers.monnify.com/docs/disbursements/single-transfers):
 * SUCCESS / COMPLETED: the money left. FAILED / REVERSED / EXPIRED: it will not (or came back).
 * PENDING, AWAITING_PROCESSING, IN_PROGRESS: on its way. PENDING_AUTHORIZATION: 2FA is on
 * and an OTP (sent to the operator's email) must be posted first; OTP_EMAIL_DISPATCH_FAILED:
 * that OTP was never sent. Those, and any status not documented, are `accepted`: never
 * `refused` unless Monnify says the money will not move, since a refused return may be paid
 * again by hand.
 */
const COMPLETED = new Set(['SUCCESS', 'COMPLETED']);
const FAILED = new Set(['FAILED', 'REVERSED', 'EXPIRED']);

function outcomeOf(body: JsonObject): ReturnOutcome {
  // The summary names it `status` (MN-WIKI pages/223149924); the requery `transactionStatus`.
  const status = stringField(body, 'status') ?? stringField(body, 'transactionStatus');
  if (status !== null && COMPLETED.has(status)) return { outcome: 'completed' };
  if (status !== null && FAILED.has(status)) {
    const description = textField(body, 'transactionDescription');
    return {
      outcome: 'refused',
      reason: `Monnify: ${status}${description ? `: ${description}` : ''}`,
    };
  }
  return { outcome: 'accepted' };
}

const refused = (reason: string): ReturnOutcome => ({ outcome: 'refused', reason });

/**
 * Returns to payers as Monnify single transfers from our wallet (`POST
 * /api/v2/disbursements/single`, MN-NODE `validators/disbursementValidator.js`), `async: true`
 * so the outcome comes by the disbursement notification or the next attempt. The reference
 * is ours (the return attempt id): a repeated call never pays twice, because Monnify refuses
 * a second transfer with the same reference and we then read the first one's status (`GET
 * /api/v2/disbursements/single/summary?reference=`).
 */
export class MonnifyDisbursements implements BankTransfers {
  readonly name = 'monnify';

  constructor(
    private readonly api: MonnifyApi,
    /** MONNIFY_SOURCE_ACCOUNT: the wallet account the money leaves. */
    private readonly sourceAccount: string,
  ) {}

  async sendReturn(transfer: OutboundReturn): Promise<ReturnOutcome> {
    const { bankCode, toAccount, name, amountNgn, reference } = transfer;
    if (bankCode === null || !isBankCode(bankCode)) {
      return refused(
        `Monnify pays only to a bank code (digits such as 058); the payer's bank is ${bankCode === null ? 'unknown' : `"${bankCode.slice(0, 40)}"`}`,
      );
    }
    if (!isAccountNumber(toAccount)) return refused('the payer account is not a 10-digit NUBAN');
    if (!name) {
      // Required since March 2026 (https://developers.monnify.com/blog/changes-to-monnify-disbursement).
      return refused("Monnify needs the payer's account name (destinationAccountName)");
    }
    if (!isDecimalString(amountNgn, 2) || dec(amountNgn).lte(0)) {
      return refused(`the amount ${amountNgn} is not a positive naira amount`);
    }
    // Monnify documents `amount` as a JSON number. A 2-place amount within 100 billion has at
    // most 13 significant digits, so the float prints back exactly (checked all the same).
    const amount = Number(amountNgn);
    if (!dec(String(amount)).eq(dec(amountNgn)))
      return refused(`the amount ${amountNgn} is too large`);
    const body = {
      amount,
      reference,
      narration: `Return of transfer ${transfer.depositId}`.slice(0, 100),
      destinationBankCode: bankCode,
      destinationAccountNumber: toAccount,
      destinationAccountName: name,
      currency: 'NGN',
      sourceAccountNumber: this.sourceAccount,
      async: true,
    };
    try {
      return outcomeOf(
        await this.api.call('disbursement', 'POST', '/api/v2/disbursements/single', body),
      );
    } catch (error) {
      if (!(error instanceof MonnifyRefusal) || error.isAuthentication) throw error;
      // Sent before (an answer lost on the way): Monnify refuses the same reference again,
      // in words it does not document; its status is the answer.
      const sent = await this.summary(reference);
      if (sent) return outcomeOf(sent);
      if (error.responseCode === 'D07') {
        // Another transfer of the same amount to the same account within 2 minutes.
        throw new ProviderUnavailableError(`${error.message} (D07: retried later)`);
      }
      return refused(error.message);
    }
  }

  private async summary(reference: string): Promise<JsonObject | null> {
    try {
      return await this.api.find(
        'disbursement status',
        `/api/v2/disbursements/single/summary?reference=${encodeURIComponent(reference)}`,
      );
    } catch (error) {
      // Monnify's words for an unknown reference are not documented: a refusal is "not found".
      if (error instanceof MonnifyRefusal && !error.isAuthentication) return null;
      throw error;
    }
  }
}
