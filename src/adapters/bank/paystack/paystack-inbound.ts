import type { InboundTransfer } from '../../../domain/inbound-transfer';
import { dec } from '../../../domain/money';
import { BankPayloadError } from '../bank-adapter';
import type { TransferConfirmation } from '../bank-provider';
import { dedicatedChargeTransfer, isDedicatedNuban } from './paystack-charge';
import { PaystackRefusal, type PaystackClient } from './paystack-client';
import { isObject, type Json } from './paystack-json';

export interface InboundListLimits {
  /** Entries asked for per page (Paystack's default is 50). */
  perPage: number;
  /** Pages read per window at most; later entries wait for the next sweep's window. */
  maxPages: number;
}

export const DEFAULT_LIST_LIMITS: InboundListLimits = { perPage: 100, maxPages: 20 };

/** Our transfer from Paystack's transaction object, or why it is not one. */
function readCharge(data: Json): { transfer: InboundTransfer } | { reason: string } {
  if (!isDedicatedNuban(data)) {
    return { reason: `Paystack's transaction is on channel ${String(data.channel)}` };
  }
  try {
    return { transfer: dedicatedChargeTransfer(data) };
  } catch (error) {
    if (error instanceof BankPayloadError) return { reason: `Paystack's record: ${error.message}` };
    throw error;
  }
}

/**
 * The inbound side checked against Paystack's own API: `confirm` (verify before crediting, so
 * a leaked secret key alone cannot mint deposits) and `list` (the sweep for notifications that
 * never came).
 */
export class PaystackInbound {
  constructor(
    private readonly client: PaystackClient,
    private readonly limits: InboundListLimits = DEFAULT_LIST_LIMITS,
  ) {}

  /**
   * `GET /transaction/verify/{reference}`: confirmed only when Paystack knows a successful NGN
   * `dedicated_nuban` transaction with that reference, of the same amount, into the same
   * account; the answer carries Paystack's figures. Unknown to Paystack (a refusal: 404, 400,
   * `status: false`) → not confirmed. Transport trouble → ProviderUnavailableError; a bad key
   * (401/403) is thrown too, since it says nothing about the transfer.
   */
  async confirm(announced: InboundTransfer): Promise<TransferConfirmation> {
    let data: unknown;
    try {
      data = (
        await this.client.get(
          'verify transaction',
          `/transaction/verify/${encodeURIComponent(announced.bankReference)}`,
        )
      ).data;
    } catch (error) {
      // 404, 400 "Transaction reference not found", 200 with status false: not known. A bad
      // key (401/403) says nothing about the transfer: thrown.
      if (
        error instanceof PaystackRefusal &&
        error.httpStatus !== 401 &&
        error.httpStatus !== 403
      ) {
        return { confirmed: false, reason: `Paystack does not know it: ${error.message}` };
      }
      throw error;
    }
    if (!isObject(data)) return { confirmed: false, reason: 'Paystack answered no transaction' };
    const read = readCharge(data);
    if ('reason' in read) return { confirmed: false, reason: read.reason };
    const known = read.transfer;
    if (known.bankReference !== announced.bankReference) {
      return { confirmed: false, reason: `Paystack's reference is ${known.bankReference}` };
    }
    if (!dec(known.amountNgn).eq(dec(announced.amountNgn))) {
      return {
        confirmed: false,
        reason: `Paystack's amount is ${known.amountNgn} NGN, not ${announced.amountNgn}`,
      };
    }
    if (known.accountNumber !== announced.accountNumber) {
      return {
        confirmed: false,
        reason: `Paystack's receiving account is ${known.accountNumber}, not ${announced.accountNumber}`,
      };
    }
    return { confirmed: true, transfer: known };
  }

  /**
   * `GET /transaction?status=success&channel=dedicated_nuban&from&to`, page by page (at most
   * `maxPages` of `perPage`). Entries that are not successful NGN dedicated-account transfers
   * are skipped. An entry without the receiving account (the list schema in PS-OAS does not
   * promise `receiver_bank_account_number`) is verified on its own to learn it.
   */
  async list(window: { from: Date; to: Date }): Promise<InboundTransfer[]> {
    const found = new Map<string, InboundTransfer>();
    for (let page = 1; page <= this.limits.maxPages; page += 1) {
      const answer = await this.client.get('list transactions', '/transaction', {
        status: 'success',
        channel: 'dedicated_nuban',
        from: window.from.toISOString(),
        to: window.to.toISOString(),
        // PS-OAS names it per_page here, perPage on every other list (and in `meta`): both.
        perPage: this.limits.perPage,
        per_page: this.limits.perPage,
        page,
      });
      const entries = Array.isArray(answer.data) ? answer.data.filter(isObject) : [];
      for (const entry of entries) {
        const transfer = await this.entryTransfer(entry);
        if (transfer) found.set(transfer.bankReference, transfer);
      }
      const pageCount = isObject(answer.meta) ? answer.meta.pageCount : undefined;
      const last =
        typeof pageCount === 'number' ? page >= pageCount : entries.length < this.limits.perPage;
      if (last || entries.length === 0) break;
    }
    return [...found.values()];
  }

  private async entryTransfer(entry: Json): Promise<InboundTransfer | null> {
    if (entry.currency !== 'NGN' || entry.status !== 'success' || !isDedicatedNuban(entry)) {
      return null;
    }
    const read = readCharge(entry);
    if ('transfer' in read) return read.transfer;
    const authorization = isObject(entry.authorization) ? entry.authorization : {};
    const reference = entry.reference;
    if (authorization.receiver_bank_account_number != null || typeof reference !== 'string') {
      return null;
    }
    const verified = await this.client.get(
      'verify transaction',
      `/transaction/verify/${encodeURIComponent(reference)}`,
    );
    if (!isObject(verified.data)) return null;
    const again = readCharge(verified.data);
    return 'transfer' in again ? again.transfer : null;
  }
}
