/**
 * What the `deposits_status_event` trigger sends on channel `deposit_events` at commit. Only a
 * pointer: the row in `events` (by seq) is what subscribers are sent.
 */
export interface DepositEventNotice {
  seq: number;
  merchantId: string;
  onrampId: string | undefined;
  depositId: string | undefined;
}

/** Null when the payload is not a notice we understand (logged by the caller). */
export function parseDepositEventNotice(payload: string): DepositEventNotice | null {
  let raw: unknown;
  try {
    raw = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null) return null;
  const fields = raw as Record<string, unknown>;
  const seq = Number(fields.seq);
  if (!Number.isSafeInteger(seq) || seq <= 0 || typeof fields.merchant_id !== 'string') {
    return null;
  }
  return {
    seq,
    merchantId: fields.merchant_id,
    onrampId: typeof fields.onramp_id === 'string' ? fields.onramp_id : undefined,
    depositId: typeof fields.deposit_id === 'string' ? fields.deposit_id : undefined,
  };
}
