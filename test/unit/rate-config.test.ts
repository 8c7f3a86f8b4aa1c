import { ConfigError, loadConfig } from '../../src/config';
import { rateSourcesAreSimulated } from '../../src/config-rates';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error(`expected ConfigError for ${JSON.stringify(env)}`);
}

describe('rate source settings', () => {
  it('default to the sandbox walk, which is simulated', () => {
    const config = loadConfig({});
    expect(config.RATE_SOURCES).toEqual(['sandbox']);
    expect(config.RATE_SOURCES_MIN).toBe(2);
    expect(config.RATE_SOURCES_MAX_SPREAD_BPS).toBe(150);
    expect(config.RATE_SOURCES_MAX_AGE_SECONDS).toBe(300);
    expect(config.RATE_SOURCE_TIMEOUT_MS).toBe(5000);
    expect(config.QUIDAX_BASE_URL).toBe('https://www.quidax.com');
    expect(config.LUNO_BASE_URL).toBe('https://api.luno.com');
    expect(config.COINBASE_BASE_URL).toBe('https://api.coinbase.com');
    expect(config.COINGECKO_BASE_URL).toBe('https://api.coingecko.com');
    expect(rateSourcesAreSimulated(config)).toBe(true);
  });

  it('read an ordered list of real sources, trimmed, and base URLs without a trailing slash', () => {
    const config = loadConfig({
      RATE_SOURCES: 'quidax, luno,coinbase ,coingecko',
      RATE_SOURCES_MIN: '3',
      QUIDAX_BASE_URL: 'http://127.0.0.1:9000/',
    });
    expect(config.RATE_SOURCES).toEqual(['quidax', 'luno', 'coinbase', 'coingecko']);
    expect(config.RATE_SOURCES_MIN).toBe(3);
    expect(config.QUIDAX_BASE_URL).toBe('http://127.0.0.1:9000');
    expect(rateSourcesAreSimulated(config)).toBe(false);
  });

  it.each([
    [
      'quidax,binance',
      'RATE_SOURCES: unknown source binance; known: sandbox, quidax, luno, coinbase, coingecko',
    ],
    ['quidax,,luno', 'RATE_SOURCES: must be a comma-separated list of source names'],
    ['quidax,quidax', 'RATE_SOURCES: names a source twice'],
    ['sandbox,quidax,luno', 'RATE_SOURCES: sandbox (simulated) cannot be mixed with real sources'],
  ])('refuse RATE_SOURCES=%p', (value, problem) => {
    expect(problems({ RATE_SOURCES: value })).toEqual([problem]);
  });

  it('refuse a minimum above the number of sources, naming RATE_SOURCES_MIN', () => {
    expect(problems({ RATE_SOURCES: 'quidax', RATE_SOURCES_MIN: '2' })).toEqual([
      'RATE_SOURCES_MIN: is 2 but RATE_SOURCES names only 1 source(s)',
    ]);
    // The sandbox is one simulated source: the minimum does not apply to it.
    expect(loadConfig({ RATE_SOURCES: 'sandbox', RATE_SOURCES_MIN: '3' }).RATE_SOURCES).toEqual([
      'sandbox',
    ]);
  });

  it.each([
    ['RATE_SOURCES_MIN', '0'],
    ['RATE_SOURCES_MAX_SPREAD_BPS', '-1'],
    ['RATE_SOURCES_MAX_SPREAD_BPS', '10001'],
    ['RATE_SOURCES_MAX_AGE_SECONDS', '0'],
    ['RATE_SOURCE_TIMEOUT_MS', '60001'],
    ['LUNO_BASE_URL', 'not a url'],
    ['COINBASE_BASE_URL', 'ftp://example.com'],
    ['COINGECKO_BASE_URL', 'https://example.com/?x=1'],
  ])('refuse %s=%p with a message naming it', (name, value) => {
    const found = problems({ [name]: value });
    expect(found).toHaveLength(1);
    expect(found[0].startsWith(`${name}:`)).toBe(true);
  });
});
