import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Dec, dec } from '../../src/domain/money';
import {
  error,
  ok,
  quoteView,
  readBody,
  schemaError,
  token,
  transferView,
} from './fx-venue-stand-in-answers';

/**
 * A stand-in for Busha's Business API (docs/providers-fx.md lists the pages it follows): a real
 * HTTP server with POST /v1/quotes, POST /v1/transfers, GET /v1/transfers/{id} and
 * GET /v1/transfers (cursor pages, newest first), Bearer authentication, the documented
 * envelopes `{status, message, data}` and `{status: "error", message, error: {name, message}}`.
 * A quote executes at most once (single use) and not after it expires. Every execution is
 * counted, so a test can assert an order converted once. Controls: fail the next requests with
 * a status, refuse quotes for good, hold an execute's answer, short quote lifetimes.
 */
export interface StandInTransfer {
  id: string;
  quote_id: string;
  status: string;
  source_currency: string;
  target_currency: string;
  source_amount: string;
  target_amount: string;
  created_at: string;
}

export interface StandInQuote {
  id: string;
  source_currency: string;
  target_currency: string;
  source_amount: string;
  target_amount: string;
  rate: string;
  expiresAt: number;
  created_at: string;
}

/** Which requests a failure applies to: quotes, executes (POST /v1/transfers), reads. */
type Route = 'quote' | 'execute' | 'read' | 'any';
const PRODUCTS = new Set(['USDT', 'USDC', 'USD']);

export class BushaStandIn {
  /** NGN per unit of the target currency the stand-in fills at. */
  rateNgn = '1500';
  quoteTtlMs = 30 * 60_000;
  minimumNgn = '100';
  pageSize = 20;
  /** What a transfer becomes once executed (conversions end at funds_converted). */
  finalStatus = 'funds_converted';
  /** Refuse every quote with this 400 message (a permanent refusal), until cleared. */
  refuseQuotes: string | undefined;
  readonly quotes = new Map<string, StandInQuote>();
  /** Every execution, oldest first: one per POST /v1/transfers that created a transfer. */
  readonly transfers: StandInTransfer[] = [];
  readonly requests: Array<{ method: string; path: string; authorization?: string }> = [];
  private failures: Array<{ route: Route; status: number; name: string; message: string }> = [];
  private hold: { arrived: () => void; release: Promise<void> } | undefined;
  private server: Server | undefined;

  constructor(readonly secretKey: string) {}

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** The next `times` requests to `route` answer `status` (503 service_unavailable by default). */
  failNext(route: Route, status = 503, times = 1, message = 'Server error'): void {
    const name =
      status === 429 ? 'too_many_requests' : status >= 500 ? 'service_unavailable' : 'bad_request';
    for (let i = 0; i < times; i += 1) this.failures.push({ route, status, name, message });
  }

  /**
   * The next execute is carried out (its transfer exists and counts) but its answer waits until
   * `release()`; `arrived` resolves once it is held, so a test can kill the caller meanwhile.
   */
  holdNextExecute(): { arrived: Promise<void>; release: () => void } {
    let arrived!: () => void;
    let release!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    this.hold = { arrived, release: new Promise<void>((resolve) => (release = resolve)) };
    return { arrived: arrival, release };
  }

  /** Executions of any of these quotes (an order's quote ids): one order converts once. */
  executionsOf(quoteIds: string[]): StandInTransfer[] {
    return this.transfers.filter((t) => quoteIds.includes(t.quote_id));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const authorization = req.headers.authorization;
    this.requests.push({ method: req.method ?? '', path: url.pathname, authorization });
    const raw = await readBody(req);
    if (raw === undefined) return error(res, 413, 'bad_request', 'request body too large');
    if (authorization !== `Bearer ${this.secretKey}`) {
      return error(res, 401, 'unauthorized', 'Invalid or missing authentication');
    }
    const route: Route =
      req.method !== 'POST' ? 'read' : url.pathname === '/v1/quotes' ? 'quote' : 'execute';
    const failure = this.failures.findIndex((f) => f.route === 'any' || f.route === route);
    if (failure >= 0) {
      const [f] = this.failures.splice(failure, 1);
      return error(res, f.status, f.name, f.message);
    }
    let body: Record<string, unknown> = {};
    if (req.method === 'POST') {
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
        if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error();
      } catch {
        return schemaError(res);
      }
    }
    if (req.method === 'POST' && url.pathname === '/v1/quotes') return this.quote(res, body);
    if (req.method === 'POST' && url.pathname === '/v1/transfers') return this.execute(res, body);
    const one = /^\/v1\/transfers\/([A-Za-z0-9_]+)$/.exec(url.pathname);
    if (req.method === 'GET' && one) {
      const transfer = this.transfers.find((t) => t.id === one[1]);
      if (!transfer) return error(res, 404, 'not_found', 'transfer not found');
      return ok(res, 200, 'Retrieved transfer successfully', transferView(transfer));
    }
    if (req.method === 'GET' && url.pathname === '/v1/transfers') {
      return this.list(res, url.searchParams.get('cursor'));
    }
    return error(res, 404, 'not_found', 'Resource not found');
  }

  private quote(res: ServerResponse, body: Record<string, unknown>): void {
    const { source_currency: from, target_currency: to, source_amount: amount } = body;
    if (typeof from !== 'string' || typeof to !== 'string') return schemaError(res);
    if (body.target_amount !== undefined || typeof amount !== 'string') {
      return error(res, 400, 'bad_request', 'provide either source_amount or target_amount');
    }
    if (!/^[0-9]+(\.[0-9]{1,2})?$/.test(amount)) return schemaError(res);
    for (const side of [body.pay_in, body.pay_out]) {
      if (side !== undefined && (side as { type?: unknown }).type !== 'balance') {
        return error(res, 400, 'bad_request', 'only balance conversions are served here');
      }
    }
    if (from !== 'NGN' || !PRODUCTS.has(to)) {
      return error(res, 400, 'bad_request', `${from} to ${to} is not supported`);
    }
    if (this.refuseQuotes) return error(res, 400, 'bad_request', this.refuseQuotes);
    if (dec(amount).lt(this.minimumNgn)) {
      return error(
        res,
        400,
        'bad_request',
        `source_amount is below the minimum of ${this.minimumNgn}`,
      );
    }
    const now = Date.now();
    const quote: StandInQuote = {
      id: `QUO_${token()}`,
      source_currency: from,
      target_currency: to,
      source_amount: amount,
      target_amount: dec(amount).div(this.rateNgn).toDecimalPlaces(8, Dec.ROUND_DOWN).toString(),
      rate: this.rateNgn,
      expiresAt: now + this.quoteTtlMs,
      created_at: new Date(now).toISOString(),
    };
    this.quotes.set(quote.id, quote);
    ok(res, 201, 'Created quote successfully', {
      ...quoteView(quote),
      pay_in: { type: 'balance' },
      pay_out: { type: 'balance' },
      reference: quote.id,
      status: 'pending',
      expires_at: new Date(quote.expiresAt).toISOString(),
      created_at: quote.created_at,
      updated_at: quote.created_at,
    });
  }

  private async execute(res: ServerResponse, body: Record<string, unknown>): Promise<void> {
    if (typeof body.quote_id !== 'string') return schemaError(res);
    const quote = this.quotes.get(body.quote_id);
    if (!quote) return error(res, 404, 'not_found', 'quote not found');
    if (this.transfers.some((t) => t.quote_id === quote.id)) {
      return error(res, 400, 'bad_request', 'quote has already been used');
    }
    if (Date.now() >= quote.expiresAt) return error(res, 400, 'bad_request', 'quote has expired');
    const now = new Date().toISOString();
    const transfer: StandInTransfer = {
      id: `TRF_${token()}`,
      quote_id: quote.id,
      status: this.finalStatus,
      source_currency: quote.source_currency,
      target_currency: quote.target_currency,
      source_amount: quote.source_amount,
      target_amount: quote.target_amount,
      created_at: now,
    };
    this.transfers.push(transfer);
    const hold = this.hold;
    this.hold = undefined;
    if (hold) {
      hold.arrived();
      await hold.release;
    }
    // Balance conversions are processed at once; the answer still says pending, as the
    // documentation's examples do, and GET shows the final status.
    if (!res.destroyed) {
      ok(res, 201, 'Created transfer successfully', {
        ...transferView(transfer),
        status: 'pending',
      });
    }
  }

  private list(res: ServerResponse, cursor: string | null): void {
    const newestFirst = [...this.transfers].reverse();
    const start = cursor ? Number(Buffer.from(cursor, 'base64').toString('utf8')) : 0;
    if (!Number.isInteger(start) || start < 0) return error(res, 400, 'bad_request', 'bad cursor');
    const page = newestFirst.slice(start, start + this.pageSize);
    const next = start + this.pageSize < newestFirst.length ? start + this.pageSize : null;
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        status: 'success',
        message: 'Retrieved transfers successfully',
        pagination: {
          next_cursor: next === null ? null : Buffer.from(String(next)).toString('base64'),
          current_entries_size: page.length,
        },
        data: page.map(transferView),
      }),
    );
  }
}
