import { ConfigError, loadConfig } from '../../src/config';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`expected ConfigError for ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('gives the API.md defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(4000);
    expect(config.RATE_INTERVAL_SECONDS).toBe(600);
    expect(config.RATE_TTL_SECONDS).toBe(1800);
    expect(config.ONRAMP_TTL_SECONDS).toBe(1500);
    expect(config.RATE_LIMIT_PER_MINUTE).toBe(100);
    expect(config.ONRAMP_ENV).toBe('sandbox');
    expect(config.DATABASE_URL).toBeUndefined();
  });

  it('reads and coerces values that are set', () => {
    const config = loadConfig({
      PORT: '8080',
      ONRAMP_ENV: 'production',
      ENCRYPTION_KEY: '00'.repeat(32),
      RATE_TTL_SECONDS: '60',
      DATABASE_URL: 'postgres://u:p@localhost:5432/db',
    });
    expect(config.PORT).toBe(8080);
    expect(config.ONRAMP_ENV).toBe('production');
    expect(config.RATE_TTL_SECONDS).toBe(60);
    expect(config.DATABASE_URL).toBe('postgres://u:p@localhost:5432/db');
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['ONRAMP_ENV', 'staging'],
    ['RATE_TTL_SECONDS', '-5'],
    ['RATE_INTERVAL_SECONDS', '0'],
    ['ONRAMP_TTL_SECONDS', '1.5'],
    ['DATABASE_URL', 'mysql://x'],
  ])('rejects %s=%p with a message naming the variable', (name, value) => {
    const error = configError({ [name]: value });
    expect(error.message).toContain(name);
    expect(error.problems.some((p) => p.startsWith(`${name}:`))).toBe(true);
  });

  it('reports every bad variable at once', () => {
    const error = configError({ PORT: 'abc', ONRAMP_ENV: 'staging' });
    expect(error.message).toContain('PORT');
    expect(error.message).toContain('ONRAMP_ENV');
    expect(error.problems).toHaveLength(2);
  });

  it('treats empty strings as unset', () => {
    const config = loadConfig({
      PORT: '',
      ONRAMP_ENV: '',
      RATE_TTL_SECONDS: '',
      DATABASE_URL: '',
      BASE_RPC_URL: '',
    });
    expect(config.PORT).toBe(4000);
    expect(config.ONRAMP_ENV).toBe('sandbox');
    expect(config.RATE_TTL_SECONDS).toBe(1800);
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.BASE_RPC_URL).toBeUndefined();
  });

  it('refuses non-public webhook destinations unless WEBHOOK_ALLOW_PRIVATE is exactly true', () => {
    expect(loadConfig({}).WEBHOOK_ALLOW_PRIVATE).toBe(false);
    const production = { ONRAMP_ENV: 'production', ENCRYPTION_KEY: '00'.repeat(32) };
    expect(loadConfig(production).WEBHOOK_ALLOW_PRIVATE).toBe(false);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'false' }).WEBHOOK_ALLOW_PRIVATE).toBe(false);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'true' }).WEBHOOK_ALLOW_PRIVATE).toBe(true);
    expect(configError({ WEBHOOK_ALLOW_PRIVATE: 'yes' }).message).toMatch(/WEBHOOK_ALLOW_PRIVATE/);
  });
});
