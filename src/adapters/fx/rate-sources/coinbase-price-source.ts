import {
  quotePerStablecoin,
  SourceProblem,
  type MarketPriceSource,
  type Quote,
  type Stablecoin,
} from './market-price-source';
import { decimalField, getJson, objectField } from './source-http';

/**
 * Coinbase's exchange rates (no authentication): `GET /v2/exchange-rates?currency=USDC`
 * answers `{data: {currency: "USDC", rates: {NGN: "...", ...}}}`, the NGN for one unit of the
 * base currency as a decimal string. It carries no timestamp, so its price counts as fresh when
 * it arrives.
 */
export class CoinbasePriceSource implements MarketPriceSource {
  readonly name = 'coinbase';

  constructor(private readonly baseUrl: string) {}

  quotes(signal: AbortSignal): Promise<Record<Stablecoin, Quote>> {
    return quotePerStablecoin((coin) => this.quote(coin, signal));
  }

  private async quote(coin: Stablecoin, signal: AbortSignal): Promise<Quote> {
    const body = objectField(
      await getJson(`${this.baseUrl}/v2/exchange-rates?currency=${coin}`, signal),
      'body',
    );
    const data = objectField(body.data, 'data');
    if (data.currency !== coin) {
      throw new SourceProblem(`answered for currency ${String(data.currency)}, not ${coin}`);
    }
    const rates = objectField(data.rates, 'data.rates');
    return { price: decimalField(rates.NGN, 'data.rates.NGN') };
  }
}
