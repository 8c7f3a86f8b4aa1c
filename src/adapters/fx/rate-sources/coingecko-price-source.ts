import {
  asProblem,
  problemForAll,
  SourceProblem,
  type MarketPriceSource,
  type Quote,
  type Stablecoin,
} from './market-price-source';
import { decimalField, getJson, objectField, timestampField } from './source-http';

/** CoinGecko's coin ids for the stablecoins. */
const COIN_IDS: Record<Stablecoin, string> = { USDC: 'usd-coin', USDT: 'tether' };

/**
 * CoinGecko's simple price: one `GET /api/v3/simple/price?ids=usd-coin,tether&vs_currencies=ngn
 * &include_last_updated_at=true&precision=full` answers `{"usd-coin": {ngn, last_updated_at},
 * tether: {...}}`. Prices are JSON numbers, read through their string form; `last_updated_at`
 * is in Unix seconds. The Demo plan's key, when configured, goes in `x-cg-demo-api-key`.
 */
export class CoinGeckoPriceSource implements MarketPriceSource {
  readonly name = 'coingecko';

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey?: string,
  ) {}

  async quotes(signal: AbortSignal): Promise<Record<Stablecoin, Quote>> {
    const query = new URLSearchParams({
      ids: `${COIN_IDS.USDC},${COIN_IDS.USDT}`,
      vs_currencies: 'ngn',
      include_last_updated_at: 'true',
      precision: 'full',
    });
    let body: Record<string, unknown>;
    try {
      const headers: Record<string, string> = this.apiKey
        ? { 'x-cg-demo-api-key': this.apiKey }
        : {};
      body = objectField(
        await getJson(`${this.baseUrl}/api/v3/simple/price?${query.toString()}`, signal, headers),
        'body',
      );
    } catch (error) {
      return problemForAll(error);
    }
    return { USDC: quoteFrom(body, 'USDC'), USDT: quoteFrom(body, 'USDT') };
  }
}

function quoteFrom(body: Record<string, unknown>, coin: Stablecoin): Quote {
  const id = COIN_IDS[coin];
  try {
    if (body[id] === undefined) throw new SourceProblem(`no ${id} in the answer`);
    const entry = objectField(body[id], id);
    return {
      price: decimalField(entry.ngn, `${id}.ngn`),
      observedAt: timestampField(entry.last_updated_at, `${id}.last_updated_at`, 's'),
    };
  } catch (error) {
    return asProblem(error);
  }
}
