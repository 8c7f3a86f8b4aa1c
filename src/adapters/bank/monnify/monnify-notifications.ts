import {
  BankPayloadError,
  BankSignatureError,
  headerValue,
  type BankEvent,
  type BankNotificationAdapter,
  type BankNotificationHeaders,
} from '../bank-adapter';
import { JsonSyntaxError, isJsonObject, parseExactJson, type JsonValue } from './exact-json';
import { PaymentFieldError, inboundTransfer, isPaid, readPayment } from './monnify-payment';
import { MONNIFY_SIGNATURE_HEADER, monnifySignatureMatches } from './monnify-signature';
import {
  field,
  monnifyTime,
  objectField,
  stringField,
  textField,
  type JsonObject,
} from './monnify-values';

/** Disbursement events and the `status` each carries (MN-EVT samples). */
const DISBURSEMENT_STATUSES = new Map<string, readonly string[]>([
  ['SUCCESSFUL_DISBURSEMENT', ['SUCCESS', 'COMPLETED']],
  ['FAILED_DISBURSEMENT', ['FAILED']],
  ['REVERSED_DISBURSEMENT', ['REVERSED']],
]);

const utf8 = new TextDecoder('utf-8', { fatal: true });

function payloadError(error: PaymentFieldError): BankPayloadError {
  return error.missing
    ? BankPayloadError.missing(error.field)
    : BankPayloadError.invalid(error.field, error.message.slice(error.field.length + 2));
}

/** Reads the body as JSON, numbers kept as written (amounts are read exactly). */
function bodyObject(body: Buffer): JsonObject {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw BankPayloadError.invalid('body', 'is not valid UTF-8');
  }
  let parsed: JsonValue;
  try {
    parsed = parseExactJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError)
      throw BankPayloadError.invalid('body', 'is not valid JSON');
    throw error;
  }
  if (!isJsonObject(parsed)) throw BankPayloadError.invalid('body', 'must be a JSON object');
  return parsed;
}

/** A payer's transfer into one of our reserved accounts (MN-EVT "Successful Collection"). */
function transferReceived(data: JsonObject): BankEvent {
  const product = objectField(data, 'product');
  const productType = product ? stringField(product, 'type') : null;
  if (productType !== 'RESERVED_ACCOUNT') {
    // Card, web SDK, invoice and offline payments share the notification URL: not ours.
    return {
      type: 'ignored',
      reason: `SUCCESSFUL_TRANSACTION of product ${productType ?? '(none)'}, not a reserved account`,
    };
  }
  const status = stringField(data, 'paymentStatus');
  if (status !== null && !isPaid(status)) {
    return { type: 'ignored', reason: `SUCCESSFUL_TRANSACTION with paymentStatus ${status}` };
  }
  let payment;
  try {
    payment = readPayment(data, 'eventData');
  } catch (error) {
    if (error instanceof PaymentFieldError) throw payloadError(error);
    throw error;
  }
  if (payment.currency === null) throw BankPayloadError.missing('eventData.currency');
  if (payment.currency !== 'NGN')
    throw BankPayloadError.invalid('eventData.currency', 'must be NGN');
  if (payment.destinationAccount === null) {
    throw BankPayloadError.missing('eventData.destinationAccountInformation.accountNumber');
  }
  return {
    type: 'transfer.received',
    transfer: inboundTransfer(payment, payment.destinationAccount),
  };
}

/** The outcome of one of our disbursements (a return), by the reference we gave it. */
function disbursementOutcome(
  eventType: string,
  expected: readonly string[],
  data: JsonObject,
): BankEvent {
  const reference = stringField(data, 'reference');
  if (!reference) throw BankPayloadError.missing('eventData.reference');
  const status = stringField(data, 'status');
  if (status !== null && !expected.includes(status)) {
    throw BankPayloadError.invalid(
      'eventData.status',
      `must be ${expected.join(' or ')} for ${eventType}`,
    );
  }
  if (eventType === 'SUCCESSFUL_DISBURSEMENT') {
    const completedAt = monnifyTime(field(data, 'completedOn'));
    return {
      type: 'transfer.return_completed',
      reference,
      ...(completedAt ? { completedAt } : {}),
    };
  }
  const description = textField(data, 'transactionDescription');
  return {
    type: 'transfer.return_failed',
    reference,
    reason:
      eventType === 'REVERSED_DISBURSEMENT'
        ? `Monnify reversed the transfer${description ? `: ${description}` : ''}`
        : `Monnify: ${description ?? 'the transfer failed'}`,
  };
}

/**
 * Monnify's notifications (MN-EVT): `monnify-signature` = hex HMAC-SHA512 of the raw body keyed
 * with the secret key, checked before the body is read; then `{eventType, eventData}`.
 * `SUCCESSFUL_TRANSACTION` of a reserved account is an inbound transfer; the disbursement
 * events are our returns' outcomes; every other event type is acknowledged and ignored.
 * There is no timestamp to bound replays: a replay is harmless because every event is keyed
 * by a reference (`transactionReference`, our disbursement `reference`) and applied once.
 */
export class MonnifyNotificationAdapter implements BankNotificationAdapter {
  readonly name = 'monnify';

  constructor(private readonly secretKey: string) {
    if (!secretKey) throw new Error('MonnifyNotificationAdapter needs the secret key');
  }

  parse(rawBody: Buffer | string, headers: BankNotificationHeaders): BankEvent {
    const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
    const signature = headerValue(headers, MONNIFY_SIGNATURE_HEADER);
    if (!signature) throw new BankSignatureError(`Missing ${MONNIFY_SIGNATURE_HEADER} header`);
    if (!monnifySignatureMatches(this.secretKey, body, signature)) {
      throw new BankSignatureError('Signature does not match');
    }
    const parsed = bodyObject(body);
    const eventType = field(parsed, 'eventType');
    if (eventType === undefined || eventType === null || eventType === '') {
      throw BankPayloadError.missing('eventType');
    }
    if (typeof eventType !== 'string')
      throw BankPayloadError.invalid('eventType', 'must be a string');
    const eventData = field(parsed, 'eventData');
    if (eventData === undefined || eventData === null) throw BankPayloadError.missing('eventData');
    if (!isJsonObject(eventData))
      throw BankPayloadError.invalid('eventData', 'must be a JSON object');

    if (eventType === 'SUCCESSFUL_TRANSACTION') return transferReceived(eventData);
    const statuses = DISBURSEMENT_STATUSES.get(eventType);
    if (statuses) return disbursementOutcome(eventType, statuses, eventData);
    return {
      type: 'ignored',
      reason: `Monnify ${eventType.slice(0, 64)} notifications are not used`,
    };
  }
}
