import { systemClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { RateSourceUnavailableError } from '../../src/adapters/fx/rate-source';
import { marketRateSource, type MarketPriceSource } from '../../src/adapters/fx/rate-sources';
import { CoinbasePriceSource } from '../../src/adapters/fx/rate-sources/coinbase-price-source';
import { CoinGeckoPriceSource } from '../../src/adapters/fx/rate-sources/coingecko-price-source';
import { LunoPriceSource } from '../../src/adapters/fx/rate-sources/luno-price-source';
import { QuidaxPriceSource } from '../../src/adapters/fx/rate-sources/quidax-price-source';
import { RateSourcesStandIn, STAND_IN_SOURCES } from '../support/rate-sources-stand-in';

// Each real market price adapter against a real HTTP stand-in serving the source's documented
// endpoint and answer, then the median of all four with sources down, hanging, stale and wrong.
describe('market price sources against their stand-ins', () => {
  let standIn: RateSourcesStandIn;
  const signal = () => AbortSignal.timeout(2000);
  const config = (env: Record<string, string> = {}) =>
    loadConfig({
      RATE_SOURCES: STAND_IN_SOURCES.join(','),
      RATE_SOURCE_TIMEOUT_MS: '500',
      ...standIn.baseUrls(),
      ...env,
    });

  beforeEach(async () => {
    standIn = await new RateSourcesStandIn({ USDC: '1500.25', USDT: '1502.5' }).start();
  });
  afterEach(() => standIn.stop());

  it('Quidax: the middle of buy and sell of usdcngn/usdtngn, timestamped by data.at', async () => {
    const quotes = await new QuidaxPriceSource(standIn.url).quotes(signal());
    expect(quotes.USDC).toEqual({ price: expect.anything(), observedAt: expect.any(Date) });
    expect('price' in quotes.USDC && quotes.USDC.price.toFixed()).toBe('1500.25');
    expect('price' in quotes.USDT && quotes.USDT.price.toFixed()).toBe('1502.5');
    expect(standIn.requests.quidax.sort()).toEqual([
      'GET /api/v1/markets/tickers/usdcngn',
      'GET /api/v1/markets/tickers/usdtngn',
    ]);
  });

  it('Luno: the middle of bid and ask of USDCNGN/USDTNGN', async () => {
    const quotes = await new LunoPriceSource(standIn.url).quotes(signal());
    expect('price' in quotes.USDC && quotes.USDC.price.toFixed()).toBe('1500.25');
    expect('price' in quotes.USDT && quotes.USDT.price.toFixed()).toBe('1502.5');
    expect(standIn.requests.luno.sort()).toEqual([
      'GET /api/1/ticker?pair=USDCNGN',
      'GET /api/1/ticker?pair=USDTNGN',
    ]);
  });

  it('Coinbase: data.rates.NGN of each currency, with no timestamp', async () => {
    const quotes = await new CoinbasePriceSource(standIn.url).quotes(signal());
    expect(quotes.USDC).toEqual({ price: expect.anything() });
    expect('price' in quotes.USDT && quotes.USDT.price.toFixed()).toBe('1502.5');
  });

  it('CoinGecko: a JSON number read through its text, never rounded by float arithmetic', async () => {
    standIn.set('coingecko', { prices: { USDC: '1500.123456789012', USDT: '1502.1' } });
    standIn.coingeckoKey = 'CG-demo-key';
    const keyless = await new CoinGeckoPriceSource(standIn.url).quotes(signal());
    expect(keyless.USDC).toEqual({ problem: 'answered HTTP 401' });
    const quotes = await new CoinGeckoPriceSource(standIn.url, 'CG-demo-key').quotes(signal());
    expect('price' in quotes.USDC && quotes.USDC.price.toFixed()).toBe('1500.123456789012');
    expect('price' in quotes.USDT && quotes.USDT.price.toFixed()).toBe('1502.1');
    expect(standIn.requests.coingecko.at(-1)).toBe(
      'GET /api/v3/simple/price?ids=usd-coin%2Ctether&vs_currencies=ngn&include_last_updated_at=true&precision=full',
    );
  });

  it('a market the source does not have spares the other coin', async () => {
    for (const source of STAND_IN_SOURCES) standIn.set(source, { prices: { USDT: '1502.5' } });
    const adapters: MarketPriceSource[] = [
      new QuidaxPriceSource(standIn.url),
      new LunoPriceSource(standIn.url),
      new CoinbasePriceSource(standIn.url),
      new CoinGeckoPriceSource(standIn.url),
    ];
    const answers = await Promise.all(adapters.map((a) => a.quotes(signal())));
    expect(answers.map((a) => a.USDC)).toEqual([
      { problem: 'answered HTTP 404' },
      { problem: 'answered HTTP 404' },
      { problem: 'answered HTTP 400' },
      { problem: 'no usd-coin in the answer' },
    ]);
    expect(answers.every((a) => 'price' in a.USDT && a.USDT.price.toFixed() === '1502.5')).toBe(
      true,
    );
  });

  it.each([
    ['1.5e3', 'data.rates.NGN is not a plain decimal'],
    ['-1500', 'data.rates.NGN is not a plain decimal'],
    ['1,500.00', 'data.rates.NGN is not a plain decimal'],
  ])('refuses the price text %p', async (text, problem) => {
    standIn.set('coinbase', { prices: { USDC: text, USDT: '1502.5' } });
    const quotes = await new CoinbasePriceSource(standIn.url).quotes(signal());
    expect(quotes.USDC).toEqual({ problem });
  });

  it('a body that is not JSON is a problem for that source only', async () => {
    standIn.set('luno', { fault: 'malformed' });
    const quotes = await new LunoPriceSource(standIn.url).quotes(signal());
    expect(quotes).toEqual({
      USDC: { problem: 'answered a body that is not JSON' },
      USDT: { problem: 'answered a body that is not JSON' },
    });
  });

  it('all four agreeing: the median of each coin, USD the USDC one', async () => {
    standIn.set('quidax', { prices: { USDC: '1500.25', USDT: '1502.5' } });
    standIn.set('luno', { prices: { USDC: '1501.75', USDT: '1503.5' } });
    standIn.set('coinbase', { prices: { USDC: '1499', USDT: '1501' } });
    standIn.set('coingecko', { prices: { USDC: '1502', USDT: '1504' } });
    const source = marketRateSource(config(), systemClock);
    const rates = await source.marketRates();
    expect(rates.USDC.toFixed()).toBe('1501'); // (1500.25 + 1501.75) / 2
    expect(rates.USDT.toFixed()).toBe('1503'); // (1502.5 + 1503.5) / 2
    expect(rates.USD.toFixed()).toBe('1501');
    expect(source.name).toBe('median:quidax,luno,coinbase,coingecko');
  });

  it('one down and another 5% off: the median of the two that agree', async () => {
    standIn.set('quidax', { fault: 'down' });
    standIn.set('luno', { prices: { USDC: '1575.2625', USDT: '1577.625' } }); // +5%
    standIn.set('coinbase', { prices: { USDC: '1500.25', USDT: '1502.5' } });
    standIn.set('coingecko', { prices: { USDC: '1501.75', USDT: '1503.5' } });
    const source = marketRateSource(config(), systemClock);
    const rates = await source.marketRates();
    expect(rates.USDC.toFixed()).toBe('1501');
    expect(rates.USDT.toFixed()).toBe('1503');
    expect(source.lastReport()!.outcomes.USDC).toMatchObject({
      agreed: true,
      used: ['coinbase', 'coingecko'],
      excluded: [
        { source: 'quidax', reason: 'answered HTTP 503' },
        { source: 'luno', reason: expect.stringContaining('more than 150 bps') },
      ],
    });
  });

  it('two down (one hanging past the timeout) of four with one off: nothing, within the timeout', async () => {
    standIn.set('quidax', { fault: 'hang' });
    standIn.set('luno', { fault: 'down' });
    standIn.set('coinbase', { prices: { USDC: '1500', USDT: '1502' } });
    standIn.set('coingecko', { prices: { USDC: '1575', USDT: '1577' } });
    const source = marketRateSource(config(), systemClock);
    const started = Date.now();
    const failure = await source.marketRates().then(
      () => undefined,
      (error: unknown) => error,
    );
    // The hanging source is given up on at RATE_SOURCE_TIMEOUT_MS (500), not waited for.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(failure).toBeInstanceOf(RateSourceUnavailableError);
    // The two left are 5% apart: neither is within 150 bps of their median.
    expect((failure as Error).message).toContain('USDC: no rate, 0 agreeing fresh price(s)');
    expect((failure as Error).message).toContain('quidax no answer before the timeout');
    expect((failure as Error).message).toContain('luno answered HTTP 503');
  });

  it('two down of three: the one left is not enough', async () => {
    standIn.set('quidax', { fault: 'down' });
    standIn.set('luno', { fault: 'malformed' });
    const source = marketRateSource(config({ RATE_SOURCES: 'quidax,luno,coinbase' }), systemClock);
    await expect(source.marketRates()).rejects.toThrow(
      /^USDC: no rate, 1 agreeing fresh price\(s\), at least 2 needed \(left out: quidax answered HTTP 503, luno answered a body that is not JSON\); USDT: no rate/,
    );
    expect(standIn.requests.coingecko).toEqual([]);
  });

  it('a stale timestamp leaves that source out; too many stale ones publish nothing', async () => {
    standIn.set('quidax', { ageSeconds: 301 });
    const source = marketRateSource(config({ RATE_SOURCES_MIN: '3' }), systemClock);
    await expect(source.marketRates()).resolves.toBeDefined();
    expect(source.lastReport()!.outcomes.USDT.excluded).toEqual([
      { source: 'quidax', reason: expect.stringMatching(/^stale: 30\d s old, at most 300 s$/) },
    ]);
    standIn.set('luno', { ageSeconds: 600 });
    await expect(source.marketRates()).rejects.toBeInstanceOf(RateSourceUnavailableError);
  });
});
