import type { Clock } from '../../../clock';
import { ProviderRefusedError, ProviderUnavailableError } from '../bank-provider';
import { JsonNumber, isJsonObject, parseExactJson, type JsonValue } from './exact-json';
import { field, stringField, textField, type JsonObject } from './monnify-values';

export interface MonnifyApiOptions {
  /** MONNIFY_BASE_URL: `https://api.monnify.com` live, `https://sandbox.monnify.com` sandbox. */
  baseUrl: string;
  apiKey: string;
  secretKey: string;
  /** BANK_PROVIDER_TIMEOUT_MS, per request (the answer's body included). */
  timeoutMs: number;
  clock: Clock;
  /** The token is renewed this long before Monnify says it expires (default 60 s). */
  tokenMarginSeconds?: number;
}

/** Monnify answered and refused: an HTTP 4xx (not 429) or `requestSuccessful: false`. */
export class MonnifyRefusal extends ProviderRefusedError {
  constructor(
    message: string,
    readonly httpStatus: number,
    readonly responseCode: string | null,
  ) {
    super(message);
  }

  /** Our credentials or token were refused: nothing about the request itself. */
  get isAuthentication(): boolean {
    return this.httpStatus === 401 || this.httpStatus === 403;
  }
}

interface Answer {
  status: number;
  body: JsonObject | null;
}

/** Monnify's own words, cut short and on one line (they end up in our errors and logs). */
function messageOf(body: JsonObject | null): string {
  const message = body ? textField(body, 'responseMessage', 200) : null;
  // eslint-disable-next-line no-control-regex -- control characters are what it removes
  return message ? message.replace(/[\u0000-\u001f\u007f]+/g, ' ') : 'no responseMessage';
}

/**
 * Monnify's HTTP API over built-in fetch (https://developers.monnify.com/api): `POST
 * /api/v1/auth/login` with `Basic base64(apiKey:secretKey)` gives `responseBody.accessToken`,
 * sent as `Bearer` on every other call and kept until `expiresIn` seconds (less a margin) by
 * the injected clock, like the official SDK (MN-NODE `src/base_api.js`); a 401 renews it
 * once. Every answer is `{requestSuccessful, responseMessage, responseCode, responseBody}`.
 *
 * Errors: unreachable, timed out, 5xx or 429 → `ProviderUnavailableError`; any other 4xx or
 * `requestSuccessful: false` → `MonnifyRefusal` (a `ProviderRefusedError`) with Monnify's
 * `responseMessage`. No message ever carries a key, a token or an Authorization header.
 */
export class MonnifyApi {
  private token: { value: string; renewAt: number } | null = null;
  private loggingIn: Promise<string> | null = null;
  private readonly marginMs: number;

  constructor(private readonly options: MonnifyApiOptions) {
    this.marginMs = (options.tokenMarginSeconds ?? 60) * 1000;
  }

  /** An authenticated call: `responseBody` of a successful answer (`{}` when it has none). */
  async call(operation: string, method: 'GET' | 'POST', path: string, body?: unknown) {
    return this.responseBody(operation, await this.authorized(operation, method, path, body));
  }

  /** Like `call`, but a 404 answers null (the thing asked about does not exist). */
  async find(operation: string, path: string): Promise<JsonObject | null> {
    const answer = await this.authorized(operation, 'GET', path);
    return answer.status === 404 ? null : this.responseBody(operation, answer);
  }

  /** A real login now, whatever is cached: what `health` asks (and it renews the token). */
  async loginNow(): Promise<void> {
    this.token = null;
    await this.accessToken();
  }

  private async authorized(
    operation: string,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<Answer> {
    const token = await this.accessToken();
    const first = await this.send(operation, method, path, `Bearer ${token}`, body);
    if (first.status !== 401) return first;
    // Expired or revoked before its time: log in again, once.
    if (this.token?.value === token) this.token = null;
    const renewed = await this.accessToken();
    const second = await this.send(operation, method, path, `Bearer ${renewed}`, body);
    if (second.status === 401) {
      throw new MonnifyRefusal(
        `Monnify refused a fresh access token for ${operation} (401): ${messageOf(second.body)}`,
        401,
        second.body ? stringField(second.body, 'responseCode') : null,
      );
    }
    return second;
  }

  private async accessToken(): Promise<string> {
    if (this.token && this.options.clock.now().getTime() < this.token.renewAt) {
      return this.token.value;
    }
    // Concurrent callers share one login.
    this.loggingIn ??= this.login().finally(() => {
      this.loggingIn = null;
    });
    return this.loggingIn;
  }

  private async login(): Promise<string> {
    const basic = Buffer.from(`${this.options.apiKey}:${this.options.secretKey}`).toString(
      'base64',
    );
    const answer = await this.send('login', 'POST', '/api/v1/auth/login', `Basic ${basic}`, {});
    const body = this.responseBody('login', answer);
    const accessToken = stringField(body, 'accessToken');
    const expiresIn = field(body, 'expiresIn');
    const seconds = expiresIn instanceof JsonNumber ? Number(expiresIn.text) : NaN;
    if (!accessToken || !Number.isFinite(seconds) || seconds <= 0) {
      throw new ProviderUnavailableError(
        'Monnify login answered without accessToken and expiresIn',
      );
    }
    const lifetimeMs = seconds * 1000;
    // Renew a margin early; a token shorter-lived than twice the margin at half its life.
    const keepMs = lifetimeMs > 2 * this.marginMs ? lifetimeMs - this.marginMs : lifetimeMs / 2;
    this.token = { value: accessToken, renewAt: this.options.clock.now().getTime() + keepMs };
    return accessToken;
  }

  private responseBody(operation: string, answer: Answer): JsonObject {
    const { status, body } = answer;
    if (status === 429 || status >= 500) {
      throw new ProviderUnavailableError(`Monnify answered ${status} to ${operation}`);
    }
    const code = body ? stringField(body, 'responseCode') : null;
    if (status >= 400) {
      const what =
        status === 401 && operation === 'login' ? 'the API key and secret key' : operation;
      throw new MonnifyRefusal(
        `Monnify refused ${what} (${status}): ${messageOf(body)}`,
        status,
        code,
      );
    }
    if (status < 200 || status >= 300 || body === null) {
      throw new ProviderUnavailableError(
        `Monnify answered ${status} to ${operation} without a JSON object`,
      );
    }
    if (field(body, 'requestSuccessful') !== true) {
      throw new MonnifyRefusal(`Monnify refused ${operation}: ${messageOf(body)}`, status, code);
    }
    const responseBody: JsonValue | undefined = field(body, 'responseBody');
    return isJsonObject(responseBody) ? responseBody : {};
  }

  private async send(
    operation: string,
    method: 'GET' | 'POST',
    path: string,
    authorization: string,
    body?: unknown,
  ): Promise<Answer> {
    const url = new URL(path, this.options.baseUrl);
    let status: number;
    let text: string;
    try {
      const response = await fetch(url, {
        method,
        headers: {
          authorization,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      // Read by shape: a DOMException (the timeout) need not be an Error of this realm.
      const name = (error as { name?: unknown } | null)?.name;
      const cause = (error as { cause?: { code?: unknown } }).cause?.code;
      throw new ProviderUnavailableError(
        name === 'TimeoutError' || name === 'AbortError'
          ? `Monnify ${operation} timed out after ${this.options.timeoutMs} ms`
          : `Monnify ${operation} could not be reached${typeof cause === 'string' ? ` (${cause})` : ''}`,
      );
    }
    let parsed: JsonValue | null = null;
    try {
      parsed = parseExactJson(text);
    } catch {
      parsed = null;
    }
    return { status, body: isJsonObject(parsed ?? undefined) ? (parsed as JsonObject) : null };
  }
}
