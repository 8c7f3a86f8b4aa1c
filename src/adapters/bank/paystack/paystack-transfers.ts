import { ProviderUnavailableError } from '../bank-provider';
import type { BankTransfers, OutboundReturn, ReturnOutcome } from '../bank-transfers';
import type { PaystackBanks } from './paystack-banks';
import { isNotFound, PaystackRefusal, type PaystackClient } from './paystack-client';
import { isObject, ngnToKobo } from './paystack-json';
import { toPaystackReference } from './paystack-return-reference';

const REFUSED = ['failed', 'rejected', 'abandoned', 'blocked', 'reversed'];

/**
 * A transfer's status (https://paystack.com/docs/transfers/how-transfers-work/) in our terms:
 * `success` → completed; the non-conclusive ones → accepted (the outcome comes by notification
 * or the next attempt); the conclusive failures → refused. An unknown status is taken as
 * not yet conclusive.
 */
export function returnOutcomeOf(transfer: unknown): ReturnOutcome {
  const status = isObject(transfer) && typeof transfer.status === 'string' ? transfer.status : '';
  if (status === 'success') return { outcome: 'completed' };
  if (REFUSED.includes(status)) {
    return { outcome: 'refused', reason: `Paystack transfer ${status}` };
  }
  // pending, received, otp, queued, and any status Paystack adds later.
  return { outcome: 'accepted' };
}

const refused = (reason: string): ReturnOutcome => ({ outcome: 'refused', reason });

/** A refusal that is about us (our key), not the transfer: thrown, so the attempt is retried. */
const aboutOurKey = (error: unknown) =>
  error instanceof PaystackRefusal && (error.httpStatus === 401 || error.httpStatus === 403);

/**
 * Returns to payers through Paystack Transfers: a `nuban` transfer recipient (`POST
 * /transferrecipient`), then `POST /transfer` from the balance, in kobo, with our return id as
 * the reference (lowercased: Paystack takes lowercase alphanumerics, `-` and `_`).
 *
 * Never twice: the reference is Paystack's idempotency key for transfers. Before sending,
 * `GET /transfer/verify/{reference}` asks whether an earlier attempt got through (its answer
 * may have been lost), and its status answers instead; a refusal of `POST /transfer` (a
 * duplicate reference among them, whatever its wording) is checked the same way.
 */
export class PaystackTransfers implements BankTransfers {
  readonly name = 'paystack';

  constructor(
    private readonly client: PaystackClient,
    private readonly banks: PaystackBanks,
  ) {}

  async sendReturn(transfer: OutboundReturn): Promise<ReturnOutcome> {
    const reference = toPaystackReference(transfer.reference);
    if (reference === null) return refused(`${transfer.reference} is not a return reference`);
    const amount = ngnToKobo(transfer.amountNgn);
    if (amount === null) return refused(`${transfer.amountNgn} NGN is not a whole number of kobo`);
    if (!/^[0-9]{10}$/.test(transfer.toAccount)) {
      return refused('the payer account is not a 10-digit NUBAN');
    }

    const earlier = await this.find(reference);
    if (earlier !== null) return returnOutcomeOf(earlier);

    const bankCode = transfer.bankCode ? await this.banks.codeFor(transfer.bankCode) : null;
    if (bankCode === null) {
      return refused(
        transfer.bankCode
          ? `Paystack lists no bank "${transfer.bankCode}": the payer's bank code is unknown`
          : "the payer's bank is unknown: Paystack needs its bank code to send a transfer",
      );
    }
    let recipient: string;
    try {
      recipient = await this.recipient(transfer, bankCode);
    } catch (error) {
      if (error instanceof PaystackRefusal && !aboutOurKey(error)) return refused(error.message);
      throw error;
    }
    try {
      const answer = await this.client.post('initiate transfer', '/transfer', {
        source: 'balance',
        amount,
        recipient,
        reference,
        reason: `Return of deposit ${transfer.depositId}`,
        currency: 'NGN',
      });
      return returnOutcomeOf(answer.data);
    } catch (error) {
      if (!(error instanceof PaystackRefusal) || aboutOurKey(error)) throw error;
      const sent = await this.find(reference);
      return sent === null ? refused(error.message) : returnOutcomeOf(sent);
    }
  }

  /** The transfer Paystack holds under this reference, or null when it has none. */
  private async find(reference: string): Promise<unknown> {
    try {
      const answer = await this.client.get(
        'verify transfer',
        `/transfer/verify/${encodeURIComponent(reference)}`,
      );
      return answer.data ?? null;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  /** Paystack answers an existing recipient for the same account (PS-OAS transferrecipient.yaml). */
  private async recipient(transfer: OutboundReturn, bankCode: string): Promise<string> {
    const answer = await this.client.post('create transfer recipient', '/transferrecipient', {
      type: 'nuban',
      name: transfer.name?.trim() || 'Payer',
      account_number: transfer.toAccount,
      bank_code: bankCode,
      currency: 'NGN',
    });
    const code = isObject(answer.data) ? answer.data.recipient_code : undefined;
    if (typeof code !== 'string' || code === '') {
      throw new ProviderUnavailableError('Paystack answered a recipient without recipient_code');
    }
    return code;
  }
}
