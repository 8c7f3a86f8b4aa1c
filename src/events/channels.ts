/**
 * Every NOTIFY channel the service uses: its name and the one parser of its payload, shared
 * by the gateway and the job runner. Senders are database triggers (their SQL names the
 * channel in the migrations) and a few services (`select pg_notify(?, ?)` with `name`). A payload is never trusted to be well
 * formed: a parser returns null for anything it does not understand, and the caller logs it.
 * NOTIFY is only a wake-up: the database rows stay the source of truth.
 */
export interface Channel<T> {
  readonly name: string;
  parse(payload: string): T | null;
}

function objectOf(payload: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(payload);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

const optionalText = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

/** A deposit's status changed (trigger `deposits_status_event`); `seq` points at its event row. */
export interface DepositEventNotice {
  seq: number;
  merchantId: string;
  depositId: string | undefined;
  onrampId: string | undefined;
  status: string | undefined;
  settlementMode: string | undefined;
}

export const DEPOSIT_EVENTS: Channel<DepositEventNotice> = {
  name: 'deposit_events',
  parse(payload) {
    const fields = objectOf(payload);
    if (!fields) return null;
    const seq = Number(fields.seq);
    if (!Number.isSafeInteger(seq) || seq <= 0 || typeof fields.merchant_id !== 'string') {
      return null;
    }
    return {
      seq,
      merchantId: fields.merchant_id,
      depositId: optionalText(fields.deposit_id),
      onrampId: optionalText(fields.onramp_id),
      status: optionalText(fields.status),
      settlementMode: optionalText(fields.settlement_mode),
    };
  },
};

/** A payout row was created (trigger `payouts_notify`): the runner signs and sends it. */
export interface PayoutNotice {
  payoutId: string;
  /** The payout's chain: whose signing drain to wake (absent: every chain's). */
  chain?: string;
}

export const PAYOUT_EVENTS: Channel<PayoutNotice> = {
  name: 'payout_events',
  parse(payload) {
    const fields = objectOf(payload);
    const payoutId = optionalText(fields?.payout_id);
    return payoutId ? { payoutId, chain: optionalText(fields?.chain) } : null;
  },
};

/** A webhook delivery is due for this merchant (trigger `events_webhook_delivery`, replays). */
export interface WebhookDueNotice {
  merchantId: string;
}

export const WEBHOOK_DELIVERIES: Channel<WebhookDueNotice> = {
  name: 'webhook_deliveries',
  // The payload is the bare merchant id, not JSON.
  parse: (payload) => (payload.length > 0 ? { merchantId: payload } : null),
};

export type RevokedCredential =
  | { kind: 'api_key'; id: string }
  | { kind: 'dashboard_session'; id: string }
  | { kind: 'client_secret'; id: string };

const CREDENTIAL_KINDS = new Set(['api_key', 'dashboard_session', 'client_secret']);

/** A credential ended (triggers on keys and sessions, client-secret revocation). */
export const CREDENTIAL_REVOKED: Channel<RevokedCredential> = {
  name: 'onramp_credential_revoked',
  parse(payload) {
    const fields = objectOf(payload);
    if (!fields) return null;
    if (typeof fields.kind !== 'string' || !CREDENTIAL_KINDS.has(fields.kind)) return null;
    if (typeof fields.id !== 'string' || fields.id === '') return null;
    return { kind: fields.kind, id: fields.id } as RevokedCredential;
  },
};
