import type { InboundTransfer } from '../../../domain/inbound-transfer';
import { dec } from '../../../domain/money';
import type { TransferConfirmation } from '../bank-provider';
import { JsonNumber, isJsonObject } from './exact-json';
import type { MonnifyReservedAccounts } from './monnify-accounts';
import { MonnifyRefusal, type MonnifyApi } from './monnify-api';
import {
  PaymentFieldError,
  inboundTransfer,
  isPaid,
  readPayment,
  type MonnifyPayment,
} from './monnify-payment';
import { field, type JsonObject } from './monnify-values';

export interface TransactionListing {
  /** Transactions per page asked of the search (Monnify's `size`). */
  pageSize: number;
  /** At most this many pages per sweep: the rest waits for the next sweep's window. */
  maxPages: number;
}

export const DEFAULT_LISTING: TransactionListing = { pageSize: 100, maxPages: 50 };

const unconfirmed = (reason: string): TransferConfirmation => ({ confirmed: false, reason });

/** A successful NGN transfer into a reserved account, by Monnify's own record. */
function collectionProblem(payment: MonnifyPayment): string | null {
  if (!isPaid(payment.paymentStatus))
    return `paymentStatus is ${payment.paymentStatus ?? 'absent'}`;
  if (payment.currency !== 'NGN') return `currency is ${payment.currency ?? 'absent'}, not NGN`;
  if (payment.productType !== 'RESERVED_ACCOUNT' || !payment.productReference) {
    return `product is ${payment.productType ?? 'absent'}, not a reserved account`;
  }
  return null;
}

/**
 * Monnify's record of collections: the status of one (`GET /api/v2/transactions/{ref}`, the
 * `|` URL-encoded; MN-NODE `getTransactionStatusv2`, MN-WIKI pages/213909851) to confirm a
 * notification, and the search (`GET /api/v1/transactions/search?page&size&from&to`, times in
 * Unix milliseconds; MN-PY `get_all_transactions`) for the sweep.
 */
export class MonnifyTransactions {
  constructor(
    private readonly api: MonnifyApi,
    private readonly accounts: MonnifyReservedAccounts,
    private readonly listing: TransactionListing = DEFAULT_LISTING,
  ) {}

  async confirm(transfer: InboundTransfer): Promise<TransferConfirmation> {
    const reference = transfer.bankReference;
    let data: JsonObject | null;
    try {
      data = await this.api.find(
        'transaction status',
        `/api/v2/transactions/${encodeURIComponent(reference)}`,
      );
    } catch (error) {
      // A refusal about this reference is an answer; our credentials refused is not.
      if (error instanceof MonnifyRefusal && !error.isAuthentication) {
        return unconfirmed(error.message);
      }
      throw error;
    }
    if (!data) return unconfirmed(`Monnify does not know transaction ${reference}`);
    let payment: MonnifyPayment;
    try {
      payment = readPayment(data, 'responseBody');
    } catch (error) {
      if (error instanceof PaymentFieldError)
        return unconfirmed(`Monnify's answer: ${error.message}`);
      throw error;
    }
    if (payment.transactionReference !== reference) {
      return unconfirmed(`Monnify answered transaction ${payment.transactionReference}`);
    }
    const problem = collectionProblem(payment);
    if (problem) return unconfirmed(`Monnify's record: ${problem}`);
    if (!dec(payment.amountNgn).eq(dec(transfer.amountNgn))) {
      return unconfirmed(
        `Monnify's record: amountPaid ${payment.amountNgn}, not ${transfer.amountNgn}`,
      );
    }
    if (
      payment.destinationAccount !== null &&
      payment.destinationAccount !== transfer.accountNumber
    ) {
      return unconfirmed(`Monnify's record: paid into ${payment.destinationAccount}`);
    }
    const numbers = await this.accounts.lookup(payment.productReference!);
    if (!numbers?.all.includes(transfer.accountNumber)) {
      return unconfirmed(
        `Monnify's record: paid to reserved account ${payment.productReference}, which does not hold ${transfer.accountNumber}`,
      );
    }
    // The payer's account is where a return goes: Monnify's masks all but 4 digits, so the
    // notification's full number must end in those (a forged payer is refused, not paid).
    const last4 = payment.senderAccountLast4;
    const announced = transfer.senderAccount ?? null;
    if (!payment.senderAccount && last4 && announced && !announced.endsWith(last4)) {
      return unconfirmed(`Monnify's record: the payer's account ends in ${last4}`);
    }
    const confirmed = inboundTransfer(payment, numbers.shown);
    return {
      confirmed: true,
      transfer: {
        ...confirmed,
        senderName: payment.senderName ?? transfer.senderName ?? null,
        senderAccount: payment.senderAccount ?? announced,
        senderBank: payment.senderBank ?? transfer.senderBank ?? null,
        transferredAt: payment.paidAt ?? transfer.transferredAt ?? null,
      },
    };
  }

  /** Paid NGN reserved-account transfers between `from` and `to`, newest Monnify pages first. */
  async list(window: { from: Date; to: Date }): Promise<InboundTransfer[]> {
    const found = new Map<string, InboundTransfer>();
    const { pageSize, maxPages } = this.listing;
    for (let page = 0; page < maxPages; page += 1) {
      const query = new URLSearchParams({
        page: String(page),
        size: String(pageSize),
        from: String(window.from.getTime()),
        to: String(window.to.getTime()),
      });
      const body = await this.api.call(
        'transaction search',
        'GET',
        `/api/v1/transactions/search?${query.toString()}`,
      );
      const content = field(body, 'content');
      const items = (Array.isArray(content) ? content : []).filter(isJsonObject);
      for (const item of items) {
        const transfer = await this.listed(item);
        // Pages shift while transfers arrive: one may show twice.
        if (transfer) found.set(transfer.bankReference, transfer);
      }
      const totalPages = field(body, 'totalPages');
      const lastByCount = totalPages instanceof JsonNumber && page + 1 >= Number(totalPages.text);
      if (field(body, 'last') === true || lastByCount || items.length < pageSize) break;
    }
    return [...found.values()];
  }

  private async listed(item: JsonObject): Promise<InboundTransfer | null> {
    let payment: MonnifyPayment;
    try {
      payment = readPayment(item, 'content[]');
    } catch (error) {
      // One item we cannot read must not hide the others from the sweep.
      if (error instanceof PaymentFieldError) return null;
      throw error;
    }
    if (collectionProblem(payment)) return null;
    const numbers = await this.accounts.lookup(payment.productReference!);
    if (!numbers) return null;
    if (payment.destinationAccount !== null && !numbers.all.includes(payment.destinationAccount)) {
      return null;
    }
    return inboundTransfer(payment, numbers.shown);
  }
}
