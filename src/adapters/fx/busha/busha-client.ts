import type { z } from 'zod';
import {
  quoteAnswer,
  refusalOf,
  transferAnswer,
  transferListAnswer,
  type BushaQuote,
  type BushaTransfer,
} from './busha-answers';

export interface BushaClientOptions {
  baseUrl: string;
  /** The dashboard's secret key (base64 of key and secret), sent as a Bearer token. */
  secretKey: string;
  /** `X-BU-PROFILE-ID`: whose balances (a customer's); unset for the business's own. */
  profileId?: string;
  timeoutMs: number;
}

export interface QuoteRequest {
  sourceCurrency: 'NGN';
  targetCurrency: string;
  /** NGN with 2 decimals, as a string (Busha takes amounts as strings). */
  sourceAmount: string;
}

/**
 * Busha Business API over HTTP (docs.busha.io): quotes, transfers, and reading transfers back.
 * Every call is bounded by `timeoutMs`. A non-2xx answer throws `BushaRefusal` (the venue
 * answered); a timeout, a broken connection or an unreadable 2xx body throws a plain error
 * (what happened is unknown).
 */
export class BushaClient {
  private readonly base: string;

  constructor(private readonly options: BushaClientOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
  }

  /** POST /v1/quotes, from and to balances (no pay_in/pay_out account: a conversion). */
  async createQuote(request: QuoteRequest): Promise<BushaQuote> {
    const body = {
      source_currency: request.sourceCurrency,
      target_currency: request.targetCurrency,
      source_amount: request.sourceAmount,
      pay_in: { type: 'balance' },
      pay_out: { type: 'balance' },
    };
    return (await this.send('POST', '/v1/quotes', quoteAnswer, body)).data;
  }

  /** POST /v1/transfers: executes a quote (its only body field is the quote id). */
  async createTransfer(quoteId: string): Promise<BushaTransfer> {
    return (await this.send('POST', '/v1/transfers', transferAnswer, { quote_id: quoteId })).data;
  }

  async getTransfer(transferId: string): Promise<BushaTransfer> {
    const path = `/v1/transfers/${encodeURIComponent(transferId)}`;
    return (await this.send('GET', path, transferAnswer)).data;
  }

  /** GET /v1/transfers, one page (newest first); `cursor` is the previous page's next_cursor. */
  async listTransfers(
    cursor?: string,
  ): Promise<{ transfers: BushaTransfer[]; nextCursor: string | null }> {
    const path = cursor ? `/v1/transfers?cursor=${encodeURIComponent(cursor)}` : '/v1/transfers';
    const page = await this.send('GET', path, transferListAnswer);
    return { transfers: page.data, nextCursor: page.pagination?.next_cursor ?? null };
  }

  private async send<T extends z.ZodTypeAny>(
    method: 'GET' | 'POST',
    path: string,
    schema: T,
    body?: unknown,
  ): Promise<z.infer<T>> {
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.options.secretKey}`,
      Accept: 'application/json',
    };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (this.options.profileId) headers['X-BU-PROFILE-ID'] = this.options.profileId;
    const response = await fetch(`${this.base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) throw refusalOf(response.status, parsed);
    const answer = schema.safeParse(parsed);
    if (!answer.success) {
      throw new Error(
        `Busha ${method} ${path} answered ${response.status} with an unreadable body: ` +
          answer.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; '),
      );
    }
    return answer.data;
  }
}
