import { ApiKeyCache, type ApiKeyRow } from '../../src/merchants/api-key-cache';

const row = (id: string, revoked_at: string | null = null): ApiKeyRow => ({
  id,
  merchant_id: 'mer_1',
  environment: 'sandbox',
  revoked_at,
  scopes: ['all'],
  allowed_ips: null,
});

describe('ApiKeyCache', () => {
  let now = 0;
  const cache = (maxEntries = 3, ttlMs = 500) =>
    new ApiKeyCache({ ttlMs, maxEntries, now: () => now });

  beforeEach(() => {
    now = 1_000;
  });

  it('stores and serves nothing until it is listening', () => {
    const c = cache();
    c.store('h1', row('key_1'), c.generation());
    expect(c.get('h1')).toBeUndefined();
    c.listening(true);
    c.store('h1', row('key_1'), c.generation());
    expect(c.get('h1')?.id).toBe('key_1');
    c.listening(false);
    expect(c.get('h1')).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('is off with a TTL of 0', () => {
    const c = cache(3, 0);
    c.listening(true);
    c.store('h1', row('key_1'), c.generation());
    expect(c.get('h1')).toBeUndefined();
  });

  it('serves an entry for the TTL counted from when its row was read', () => {
    const c = cache();
    c.listening(true);
    const since = c.generation();
    now += 200; // the lookup took 200 ms
    c.store('h1', row('key_1'), since);
    now += 299;
    expect(c.get('h1')).toBeDefined();
    now += 1;
    expect(c.get('h1')).toBeUndefined();
  });

  it('drops a key on its revocation, and refuses a row read before the notice', () => {
    const c = cache();
    c.listening(true);
    c.store('h1', row('key_1'), c.generation());
    const inFlight = c.generation();
    c.revoked('key_1');
    expect(c.get('h1')).toBeUndefined();
    c.store('h1', row('key_1'), inFlight);
    expect(c.get('h1')).toBeUndefined();
    c.store('h1', row('key_1'), c.generation());
    expect(c.get('h1')).toBeDefined();
  });

  it('never stores a revoked row', () => {
    const c = cache();
    c.listening(true);
    c.store('h1', row('key_1', '2026-01-01T00:00:00Z'), c.generation());
    expect(c.size).toBe(0);
  });

  it('keeps at most maxEntries, dropping the least recently used', () => {
    const c = cache(2);
    c.listening(true);
    c.store('h1', row('key_1'), c.generation());
    c.store('h2', row('key_2'), c.generation());
    c.get('h1'); // h2 is now the least recently used
    c.store('h3', row('key_3'), c.generation());
    expect(c.size).toBe(2);
    expect(c.get('h2')).toBeUndefined();
    expect(c.get('h1')).toBeDefined();
    expect(c.get('h3')).toBeDefined();
  });
});
