import {
  quotePerStablecoin,
  SourceProblem,
  type MarketPriceSource,
  type Quote,
  type Stablecoin,
} from './market-price-source';
import { decimalField, getJson, midpoint, objectField, timestampField } from './source-http';

/**
 * Quidax's public market ticker (no key): `GET /api/v1/markets/tickers/{market}` with market
 * `usdtngn` / `usdcngn`, answering `{status: "success", data: {at, ticker: {buy, sell, low,
 * high, open, last, vol}}}`. The price is the middle of `buy` and `sell` (the book's two best
 * prices); `at` is the ticker's time in Unix seconds. Pages: docs/providers-rates.md.
 */
export class QuidaxPriceSource implements MarketPriceSource {
  readonly name = 'quidax';

  constructor(private readonly baseUrl: string) {}

  quotes(signal: AbortSignal): Promise<Record<Stablecoin, Quote>> {
    return quotePerStablecoin((coin) => this.quote(coin, signal));
  }

  private async quote(coin: Stablecoin, signal: AbortSignal): Promise<Quote> {
    const market = `${coin.toLowerCase()}ngn`;
    const body = objectField(
      await getJson(`${this.baseUrl}/api/v1/markets/tickers/${market}`, signal),
      'body',
    );
    if (body.status !== 'success') throw new SourceProblem(`status is ${String(body.status)}`);
    const data = objectField(body.data, 'data');
    if (data.market !== undefined && data.market !== market) {
      throw new SourceProblem(`answered for market ${String(data.market)}, not ${market}`);
    }
    const ticker = objectField(data.ticker, 'data.ticker');
    const price = midpoint(
      decimalField(ticker.buy, 'data.ticker.buy'),
      decimalField(ticker.sell, 'data.ticker.sell'),
      'data.ticker',
    );
    return { price, observedAt: timestampField(data.at, 'data.at', 's') };
  }
}
