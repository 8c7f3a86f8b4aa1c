import {
  quotePerStablecoin,
  SourceProblem,
  type MarketPriceSource,
  type Quote,
  type Stablecoin,
} from './market-price-source';
import { decimalField, getJson, midpoint, objectField, timestampField } from './source-http';

/**
 * Luno's public ticker (market data needs no key): `GET /api/1/ticker?pair=USDTNGN` (and
 * `USDCNGN`), answering `{pair, timestamp, bid, ask, last_trade, rolling_24_hour_volume,
 * status}` with prices as decimal strings and `timestamp` in Unix milliseconds. The price is
 * the middle of `bid` and `ask`; a market whose `status` is not ACTIVE gives none.
 */
export class LunoPriceSource implements MarketPriceSource {
  readonly name = 'luno';

  constructor(private readonly baseUrl: string) {}

  quotes(signal: AbortSignal): Promise<Record<Stablecoin, Quote>> {
    return quotePerStablecoin((coin) => this.quote(coin, signal));
  }

  private async quote(coin: Stablecoin, signal: AbortSignal): Promise<Quote> {
    const pair = `${coin}NGN`;
    const body = objectField(
      await getJson(`${this.baseUrl}/api/1/ticker?pair=${pair}`, signal),
      'body',
    );
    if (body.pair !== undefined && body.pair !== pair) {
      throw new SourceProblem(`answered for pair ${String(body.pair)}, not ${pair}`);
    }
    if (body.status !== 'ACTIVE')
      throw new SourceProblem(`market status is ${String(body.status)}`);
    const price = midpoint(decimalField(body.bid, 'bid'), decimalField(body.ask, 'ask'), pair);
    return { price, observedAt: timestampField(body.timestamp, 'timestamp', 'ms') };
  }
}
