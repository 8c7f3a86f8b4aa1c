// The stand-in's transfer side: recipients and transfers (Paystack Transfers, PS-OAS
// transferrecipient.yaml, transfer.yaml, transfer_verify_{reference}.yaml).
import { ok, refusal, type Answer } from './paystack-stand-in-books';
import { SAMPLE_BANKS, transferData, type Json, type SampleTransfer } from './paystack-samples';

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

export class PaystackTransferBooks {
  readonly transfers = new Map<string, SampleTransfer>();
  private readonly recipients = new Map<string, { code: string; name: string; bankCode: string }>();
  /** Status a new transfer starts in (`success`, `pending`, `otp`, `failed`...). */
  newTransferStatus = 'pending';

  constructor(private readonly id: () => number) {}

  createRecipient(body: Json): Answer {
    const accountNumber = text(body.account_number);
    const bank = SAMPLE_BANKS.find((b) => b.code === text(body.bank_code));
    if (body.type !== 'nuban' || !text(body.name)) {
      return refusal(400, 'Recipient type and name are required', 'missing_params');
    }
    if (!bank) return refusal(400, 'Cannot resolve account', 'invalid_bank_code');
    if (!/^[0-9]{10}$/.test(accountNumber)) {
      return refusal(400, 'Account number is invalid', 'invalid_params');
    }
    const key = `${bank.code}:${accountNumber}`;
    // PS-OAS transferrecipient.yaml: an existing account number answers the existing recipient.
    const recipient = this.recipients.get(key) ?? {
      code: `RCP_${this.id().toString(36).padStart(15, 'r')}`,
      name: text(body.name),
      bankCode: bank.code,
    };
    this.recipients.set(key, recipient);
    return ok('Transfer recipient created successfully', {
      active: true,
      currency: 'NGN',
      domain: 'test',
      id: this.id(),
      name: recipient.name,
      recipient_code: recipient.code,
      type: 'nuban',
      is_deleted: false,
      details: {
        authorization_code: null,
        account_number: accountNumber,
        account_name: recipient.name,
        bank_code: bank.code,
        bank_name: bank.name,
      },
    });
  }

  createTransfer(body: Json): Answer {
    const reference = text(body.reference);
    // PS-OAS TransferBase.yaml: lowercase alphanumerics, - and _ (and at least 16 of them).
    if (!/^[a-z0-9_-]{16,}$/.test(reference)) {
      return refusal(400, 'Invalid transfer reference', 'invalid_params');
    }
    if (this.transfers.has(reference)) {
      // The wording is the stand-in's: the errors page states the meaning, not the message.
      return refusal(400, 'Duplicate Transfer Reference', 'duplicate_reference');
    }
    if (
      body.source !== 'balance' ||
      !Number.isSafeInteger(body.amount) ||
      Number(body.amount) <= 0
    ) {
      return refusal(400, 'Invalid amount or source', 'invalid_params');
    }
    const entry = [...this.recipients.entries()].find(([, r]) => r.code === body.recipient);
    if (!entry) return refusal(400, 'Recipient specified is invalid', 'invalid_transfer_recipient');
    const [key, recipient] = entry;
    const bank = SAMPLE_BANKS.find((b) => b.code === recipient.bankCode)!;
    const id = this.id();
    const transfer: SampleTransfer = {
      id,
      transferCode: `TRF_${id.toString(36).padStart(15, 't')}`,
      reference,
      amount: Number(body.amount),
      status: this.newTransferStatus,
      reason: text(body.reason),
      recipientCode: recipient.code,
      recipientName: recipient.name,
      accountNumber: key.split(':')[1]!,
      bankCode: bank.code,
      bankName: bank.name,
      createdAt: new Date().toISOString(),
      transferredAt: null,
    };
    this.transfers.set(reference, transfer);
    const { recipient: _recipient, ...created } = transferData(transfer);
    return ok('Transfer has been queued', { ...created, recipient: id });
  }

  verifyTransfer(reference: string): Answer {
    const transfer = this.transfers.get(reference);
    if (!transfer) return refusal(404, 'Transfer not found', 'not_found');
    return ok('Transfer retrieved', transferData(transfer));
  }
}
