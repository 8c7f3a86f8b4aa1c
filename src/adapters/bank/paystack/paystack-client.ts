import { ProviderRefusedError, ProviderUnavailableError } from '../bank-provider';
import { isObject } from './paystack-json';

/**
 * Paystack answered 4xx (other than 429), or 2xx with `status: false`: it refused the request.
 * `httpStatus` tells a missing record (404) from a bad key (401) or a bad request (400);
 * `code` is Paystack's error code when it sent one (`missing_params`, ...).
 */
export class PaystackRefusal extends ProviderRefusedError {
  constructor(
    message: string,
    readonly httpStatus: number,
    readonly code: string | null,
  ) {
    super(message);
  }
}

/** True when Paystack said it has no such record (404, or 400 "not found" on some endpoints). */
export function isNotFound(error: unknown): error is PaystackRefusal {
  return (
    error instanceof PaystackRefusal &&
    (error.httpStatus === 404 || (error.httpStatus === 400 && /not found/i.test(error.message)))
  );
}

/** A successful answer's envelope (`{status: true, message, data, meta}`). */
export interface PaystackAnswer {
  data: unknown;
  meta: unknown;
  message: string;
}

export interface PaystackClientOptions {
  baseUrl: string;
  secretKey: string;
  timeoutMs: number;
}

type Query = Record<string, string | number | boolean | undefined>;

/** Paystack's own words, shortened and made printable; never our key (were it echoed). */
function paystackMessage(body: unknown, secretKey: string): string {
  const message = isObject(body) && typeof body.message === 'string' ? body.message : '';
  return message
    .split(secretKey)
    .join('[redacted]')
    .replace(/[^\x20-\x7e\u00a0-\uffff]/g, ' ')
    .slice(0, 200);
}

/**
 * Paystack's REST API over the built-in fetch: `Authorization: Bearer <secret key>`, JSON both
 * ways, each call bounded by `timeoutMs` (connection, answer and body). Errors name the
 * operation (`verify transaction`), never the path (it may hold an email) nor the key:
 * network trouble, a timeout, 5xx, 429 or an unreadable answer → ProviderUnavailableError;
 * other 4xx and `status: false` → PaystackRefusal (a ProviderRefusedError) with Paystack's
 * `message`.
 */
export class PaystackClient {
  private readonly baseUrl: string;

  constructor(private readonly options: PaystackClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  get(operation: string, path: string, query: Query = {}): Promise<PaystackAnswer> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) search.set(name, String(value));
    }
    const suffix = search.size > 0 ? `?${search.toString()}` : '';
    return this.call(operation, 'GET', `${path}${suffix}`);
  }

  post(operation: string, path: string, body: Record<string, unknown>): Promise<PaystackAnswer> {
    return this.call(operation, 'POST', path, JSON.stringify(body));
  }

  private async call(
    operation: string,
    method: 'GET' | 'POST',
    pathAndQuery: string,
    body?: string,
  ): Promise<PaystackAnswer> {
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${this.baseUrl}${pathAndQuery}`, {
        method,
        headers: {
          authorization: `Bearer ${this.options.secretKey}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body }),
        redirect: 'error',
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw new ProviderUnavailableError(
        `Paystack ${operation}: ${transportProblem(error, this.options.timeoutMs)}`,
      );
    }

    let parsed: unknown;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = null;
    }
    const status = response.status;
    const message = paystackMessage(parsed, this.options.secretKey);
    if (status === 429 || status >= 500) {
      throw new ProviderUnavailableError(
        `Paystack ${operation} answered ${status}${message ? `: ${message}` : ''}`,
      );
    }
    if (status >= 400 && status < 500) {
      const code = isObject(parsed) && typeof parsed.code === 'string' ? parsed.code : null;
      throw new PaystackRefusal(
        `Paystack refused ${operation} (${status}): ${message || 'no message'}`,
        status,
        code,
      );
    }
    if (status < 200 || status >= 300 || !isObject(parsed)) {
      throw new ProviderUnavailableError(
        `Paystack ${operation} answered ${status} with no readable JSON object`,
      );
    }
    if (parsed.status !== true) {
      const code = typeof parsed.code === 'string' ? parsed.code : null;
      throw new PaystackRefusal(
        `Paystack refused ${operation}: ${message || 'status false'}`,
        status,
        code,
      );
    }
    return { data: parsed.data, meta: parsed.meta, message };
  }
}

/**
 * Why no answer came, without the URL (node's messages can carry it) or any header. Read by
 * shape, not `instanceof`: the timeout is a DOMException, from another realm under some hosts.
 */
function transportProblem(error: unknown, timeoutMs: number): string {
  const { name, cause } = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    cause?: { code?: unknown };
  };
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const code = typeof cause?.code === 'string' ? cause.code : null;
  return code ? `unreachable (${code})` : 'unreachable';
}
