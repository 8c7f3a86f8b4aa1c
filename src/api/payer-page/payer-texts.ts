import type { DepositStatus } from '../../domain/deposit-state-machine';
import { REASON } from '../../domain/deposit-reasons';

/** Flag reasons as a payer reads them (anything else: a general sentence, never internals). */
const REASON_TEXT: Record<string, string> = {
  [REASON.underpaid]: 'The amount you sent is less than the amount that was expected.',
  [REASON.overpaid]: 'The amount you sent is more than the amount that was expected.',
  [REASON.payerNameMismatch]:
    'The name on the sending account is not the name the payment was expected from.',
  [REASON.afterOnrampExpiry]: 'Your transfer arrived after the payment window had closed.',
  [REASON.afterRateExpiry]: 'Your transfer arrived after the quoted exchange rate had expired.',
  [REASON.afterDeactivation]: 'Your transfer arrived after this payment account was closed.',
  [REASON.secondThrowawayTransfer]:
    'This payment account was meant for a single transfer and had already received one.',
};

export function payerReasonText(reason: string | null): string {
  return (
    (reason && REASON_TEXT[reason]) ?? 'Your transfer needs a decision before it can be completed.'
  );
}

/** Where the deposit stands, in the payer's words. */
export function payerStatusText(status: DepositStatus): string {
  switch (status) {
    case 'FLAGGED':
      return 'Your transfer is on hold, waiting for a decision.';
    case 'PENDING_FX':
    case 'PENDING_WITHDRAWAL':
      return 'Your transfer is being converted.';
    case 'SETTLED':
      return 'Your transfer was converted and credited.';
    case 'RETURNING':
      return 'Your money is being returned to your account.';
    case 'RETURNED':
      return 'Your money was returned to your account.';
    case 'RETURN_FAILED':
      return 'The return to your account failed; the merchant will contact you.';
    case 'REVERSED':
      return 'Your bank reversed the transfer.';
    default:
      return 'This transfer has been closed; the merchant will contact you if needed.';
  }
}

/** NGN with thousands separators: 20000.00 -> 20,000.00. */
export function naira(amount: string): string {
  const [whole, fraction] = amount.split('.');
  return `₦${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction ? `.${fraction}` : ''}`;
}
