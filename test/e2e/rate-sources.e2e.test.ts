import { dec } from '../../src/domain/money';
import { priceQuote } from '../../src/domain/rates';
import { createTestDatabase } from '../support/db';
import { request } from '../support/http';
import { RateSourcesStandIn, STAND_IN_SOURCES } from '../support/rate-sources-stand-in';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';

const FEE_BPS = 50; // the default

/** What GET /v1/rates answers for a market rate, through the same pricing rule RateService uses. */
function expectedRate(to: string, market: string) {
  const quote = priceQuote(dec(market), FEE_BPS);
  return {
    from: 'NGN',
    to,
    market_rate: Number(market),
    rate: Number(quote.rate.toFixed()),
    inverse_rate: Number(quote.inverseRate.toFixed()),
    fee_bps: FEE_BPS,
  };
}

// The stack runs on four real market price sources (RATE_SOURCES), all served by the stand-in:
// the gateway and the job runner are separate processes; only the stand-in runs in this one.
describe('market rates from real sources (median of those that agree)', () => {
  let standIn: RateSourcesStandIn;
  let stack: Stack;
  let key: string;
  const rates = (to: string) => request(stack.url, 'GET', `/v1/rates?from=NGN&to=${to}`, { key });

  beforeAll(async () => {
    standIn = await new RateSourcesStandIn().start();
    // (a) from the start: Quidax down (HTTP 503), Luno 5% above the others.
    standIn.set('quidax', { fault: 'down' });
    standIn.set('luno', { prices: { USDC: '1575.2625', USDT: '1577.625' } });
    standIn.set('coinbase', { prices: { USDC: '1500.25', USDT: '1502.5' } });
    standIn.set('coingecko', { prices: { USDC: '1501.75', USDT: '1503.5' } });
    const databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: {
        RATE_SOURCES: STAND_IN_SOURCES.join(','),
        ...standIn.baseUrls(),
        RATE_SOURCE_TIMEOUT_MS: '500',
        RATE_INTERVAL_SECONDS: '1',
        RATE_TTL_SECONDS: '4',
        RATE_LIMIT_PER_MINUTE: '100000',
      },
    });
    ({ api_key: key } = await createMerchant(databaseUrl));
  });
  afterAll(async () => {
    await stack?.stop();
    await standIn?.stop();
  });

  it('(a) one source down and another 5% off: publishes the median of the two that agree', async () => {
    const usdc = await eventually(async () => {
      const r = await rates('USDC');
      return r.status === 200 ? r.body : undefined;
    });
    // (1500.25 + 1501.75) / 2 and (1502.5 + 1503.5) / 2; Luno's 5% and Quidax's 503 left out.
    expect(usdc).toMatchObject(expectedRate('USDC', '1501'));
    expect((await rates('USDT')).body).toMatchObject(expectedRate('USDT', '1503'));
    expect((await rates('USD')).body).toMatchObject(expectedRate('USD', '1501'));
    // Every source was asked, at its documented endpoint.
    for (const source of STAND_IN_SOURCES)
      expect(standIn.requests[source].length).toBeGreaterThan(0);
    expect(standIn.requests.quidax).toContain('GET /api/v1/markets/tickers/usdcngn');
    expect(standIn.requests.luno).toContain('GET /api/1/ticker?pair=USDTNGN');
    expect(standIn.requests.coinbase).toContain('GET /v2/exchange-rates?currency=USDC');
  });

  it('(b) two down: no new rate, and 503 rate_unavailable once the last one expires', async () => {
    // Coinbase now hangs (given up on after RATE_SOURCE_TIMEOUT_MS): with Quidax still down,
    // the two left (Luno and CoinGecko) are 5% apart and neither agrees with their median.
    standIn.set('coinbase', { fault: 'hang' });
    // Wait for a whole round asked after the change, so no rate fetched before it is still
    // on its way in: then the newest rate is the last one there will be.
    const asked = standIn.requests.coingecko.length;
    await eventually(async () =>
      standIn.requests.coingecko.length >= asked + 2 ? true : undefined,
    );
    const lastGood = await rates('USDC');
    expect(lastGood.status).toBe(200);

    const servedMeanwhile = new Set<string>();
    const unavailable = await eventually(async () => {
      const r = await rates('USDC');
      if (r.status === 200) servedMeanwhile.add(r.body.rate_id);
      return r.status === 503 ? r : undefined;
    }, 15_000);
    // Until then only the last good rate was served: nothing new was published.
    expect([...servedMeanwhile].filter((id) => id !== lastGood.body.rate_id)).toEqual([]);
    expect(unavailable.body).toEqual({
      error: { code: 'rate_unavailable', message: expect.any(String) },
    });
    // Not before the last published rate expired (the bound starts at that rate).
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(lastGood.body.expires_at) - 50);
    expect((await rates('USDT')).status).toBe(503);
    const warnings = stack.runners[0].logs.filter((line) =>
      line.includes('rate source unavailable; no rate published'),
    );
    expect(warnings.some((line) => line.includes('USDC: no rate, 0 agreeing fresh price'))).toBe(
      true,
    );
  });
});
