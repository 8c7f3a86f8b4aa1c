import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { dec } from '../../src/domain/money';

export type StandInSource = 'quidax' | 'luno' | 'coinbase' | 'coingecko';
export const STAND_IN_SOURCES: StandInSource[] = ['quidax', 'luno', 'coinbase', 'coingecko'];
type Coin = 'USDC' | 'USDT';

/**
 * How one source answers: its NGN price per coin (the exact text it sends; a coin left out is
 * a market the source does not have), and a fault: `down` (HTTP 503), `hang` (never answers),
 * `malformed` (200 with a body that is not JSON). `ageSeconds` back-dates the source's own
 * timestamp (stale prices); Coinbase's answer carries none.
 */
export interface SourceControl {
  prices: Partial<Record<Coin, string>>;
  fault?: 'down' | 'hang' | 'malformed';
  ageSeconds?: number;
}

/**
 * One real HTTP server answering the documented public endpoints of all four market price
 * sources (docs/providers-rates.md has each page), so every `*_BASE_URL` can point at it:
 *   Quidax    GET /api/v1/markets/tickers/{usdtngn|usdcngn}
 *   Luno      GET /api/1/ticker?pair={USDTNGN|USDCNGN}
 *   Coinbase  GET /v2/exchange-rates?currency={USDC|USDT}
 *   CoinGecko GET /api/v3/simple/price?ids=usd-coin,tether&vs_currencies=ngn&...
 * Error bodies follow each source's published error shape where it has one.
 */
export class RateSourcesStandIn {
  readonly controls: Record<StandInSource, SourceControl>;
  /** Requests each source received, for tests that check who was asked. */
  readonly requests: Record<StandInSource, string[]> = {
    quidax: [],
    luno: [],
    coinbase: [],
    coingecko: [],
  };
  /** When set, CoinGecko answers 401 unless `x-cg-demo-api-key` is this. */
  coingeckoKey: string | undefined;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(prices: Partial<Record<Coin, string>> = { USDC: '1500.00', USDT: '1502.00' }) {
    this.controls = {
      quidax: { prices: { ...prices } },
      luno: { prices: { ...prices } },
      coinbase: { prices: { ...prices } },
      coingecko: { prices: { ...prices } },
    };
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** The settings that point every source at this server. */
  baseUrls(): Record<string, string> {
    return {
      QUIDAX_BASE_URL: this.url,
      LUNO_BASE_URL: this.url,
      COINBASE_BASE_URL: this.url,
      COINGECKO_BASE_URL: this.url,
    };
  }

  set(source: StandInSource, control: Partial<SourceControl>): void {
    this.controls[source] = { ...this.controls[source], ...control };
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => this.answer(req, res));
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy(); // hanging requests too
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const route = routeOf(req.method ?? '', url.pathname);
    if (!route) return json(res, 404, { error: 'no such endpoint' });
    this.requests[route.source].push(`${req.method} ${url.pathname}${url.search}`);
    const control = this.controls[route.source];
    if (control.fault === 'hang') return; // the socket stays open until the client gives up
    if (control.fault === 'down') return json(res, 503, errorBody(route.source));
    if (control.fault === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data": {"ticker": ');
      return;
    }
    const at = Date.now() - (control.ageSeconds ?? 0) * 1000;
    switch (route.source) {
      case 'quidax':
        return quidax(res, control, route.market!, at);
      case 'luno':
        return luno(res, control, url.searchParams.get('pair') ?? '', at);
      case 'coinbase':
        return coinbase(res, control, url.searchParams.get('currency') ?? '');
      case 'coingecko':
        if (this.coingeckoKey && req.headers['x-cg-demo-api-key'] !== this.coingeckoKey) {
          return json(res, 401, {
            status: { error_code: 10002, error_message: 'API Key Missing' },
          });
        }
        return coingecko(res, control, url.searchParams, at);
    }
  }
}

function routeOf(
  method: string,
  path: string,
): { source: StandInSource; market?: string } | undefined {
  if (method !== 'GET') return undefined;
  const quidax = /^\/api\/v1\/markets\/tickers\/([a-z0-9]+)$/.exec(path);
  if (quidax) return { source: 'quidax', market: quidax[1] };
  if (path === '/api/1/ticker') return { source: 'luno' };
  if (path === '/v2/exchange-rates') return { source: 'coinbase' };
  if (path === '/api/v3/simple/price') return { source: 'coingecko' };
  return undefined;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function errorBody(source: StandInSource): unknown {
  switch (source) {
    case 'quidax':
      return { status: 'error', message: 'Service unavailable' };
    case 'luno':
      return { error: 'Service unavailable', error_code: 'ErrInternal' };
    case 'coinbase':
      return { errors: [{ id: 'internal_server_error', message: 'Service unavailable' }] };
    case 'coingecko':
      return { status: { error_code: 503, error_message: 'Service unavailable' } };
  }
}

const COIN_OF_MARKET: Record<string, Coin> = { usdtngn: 'USDT', usdcngn: 'USDC' };

/** Quidax's ticker; `buy` and `sell` sit 0.5 NGN either side of the price, so their middle is it. */
function quidax(res: ServerResponse, control: SourceControl, market: string, at: number): void {
  const coin = COIN_OF_MARKET[market];
  const price = coin ? control.prices[coin] : undefined;
  if (!price) return json(res, 404, { status: 'error', message: 'Market not found' });
  json(res, 200, {
    status: 'success',
    message: 'Successful',
    data: {
      at: Math.floor(at / 1000),
      ticker: {
        buy: around(price, '-0.5'),
        sell: around(price, '0.5'),
        low: price,
        high: price,
        open: price,
        last: price,
        vol: '1000.0',
      },
      market,
    },
  });
}

function luno(res: ServerResponse, control: SourceControl, pair: string, at: number): void {
  const coin = pair === 'USDTNGN' ? 'USDT' : pair === 'USDCNGN' ? 'USDC' : undefined;
  const price = coin ? control.prices[coin] : undefined;
  if (!price) {
    return json(res, 404, { error: 'Market not found', error_code: 'ErrMarketNotFound' });
  }
  json(res, 200, {
    pair,
    timestamp: at,
    bid: around(price, '-0.25'),
    ask: around(price, '0.25'),
    last_trade: price,
    rolling_24_hour_volume: '1000.00',
    status: 'ACTIVE',
  });
}

function coinbase(res: ServerResponse, control: SourceControl, currency: string): void {
  const price = currency === 'USDC' || currency === 'USDT' ? control.prices[currency] : undefined;
  if (!price) {
    return json(res, 400, { errors: [{ id: 'invalid_request', message: 'Invalid currency' }] });
  }
  json(res, 200, { data: { currency, rates: { NGN: price, USD: '1.0', EUR: '0.92' } } });
}

/** CoinGecko sends prices as JSON numbers: the price text goes into the body as a number literal. */
function coingecko(
  res: ServerResponse,
  control: SourceControl,
  query: URLSearchParams,
  at: number,
): void {
  const ids = (query.get('ids') ?? '').split(',');
  const coins: Record<string, Coin> = { 'usd-coin': 'USDC', tether: 'USDT' };
  const entries = ids
    .filter((id) => coins[id] && control.prices[coins[id]] && query.get('vs_currencies') === 'ngn')
    .map((id) => {
      const updated = query.get('include_last_updated_at') === 'true';
      const stamp = updated ? `,"last_updated_at":${Math.floor(at / 1000)}` : '';
      return `${JSON.stringify(id)}:{"ngn":${control.prices[coins[id]]}${stamp}}`;
    });
  res.writeHead(200, { 'content-type': 'application/json' }).end(`{${entries.join(',')}}`);
}

/** `price + delta`, exactly, in decimal text. */
function around(price: string, delta: string): string {
  return dec(price).plus(delta).toFixed();
}
