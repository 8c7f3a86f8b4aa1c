import { loadConfig } from '../../src/config';

/** The HTTP edge's settings: the internal listener, the client address, the address limit. */
describe('edge configuration', () => {
  it('defaults: internal listener on loopback 4002, no proxy trusted, 100 per address', () => {
    const config = loadConfig({});
    expect(config.INTERNAL_PORT).toBe(4002);
    expect(config.INTERNAL_HOST).toBe('127.0.0.1');
    expect(config.TRUST_PROXY).toBe(false);
    expect(config.RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE).toBe(100);
    expect(config.DEPOSITS_GAUGE_REFRESH_SECONDS).toBe(15);
  });

  it.each([
    // One trusted hop, never Fastify's `true` (the leftmost address: the client's own).
    ['true', 1],
    ['false', false],
    ['2', 2],
    ['10.0.0.1', ['10.0.0.1']],
    ['10.0.0.0/8, 192.168.1.1', ['10.0.0.0/8', '192.168.1.1']],
    ['::1,fd00::/8', ['::1', 'fd00::/8']],
    ['loopback, uniquelocal', ['loopback', 'uniquelocal']],
  ])('TRUST_PROXY=%s is passed to Fastify as %p', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).TRUST_PROXY).toEqual(expected);
  });

  it.each([['yes'], ['any'], ['10.0.0.1;rm']])('TRUST_PROXY=%s stops start-up', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY/);
  });

  it('INTERNAL_PORT 0 means any free port; a bad one stops start-up', () => {
    expect(loadConfig({ INTERNAL_PORT: '0' }).INTERNAL_PORT).toBe(0);
    expect(() => loadConfig({ INTERNAL_PORT: '70000' })).toThrow(/INTERNAL_PORT/);
  });
});
