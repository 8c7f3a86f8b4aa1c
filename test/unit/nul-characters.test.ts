import { hostileVariables, pathOfNul, refuseNulCharacters } from '../../src/api/nul-characters';

describe('NUL characters in requests', () => {
  it('finds the first string with a NUL at any depth, with its path', () => {
    expect(pathOfNul({ user: { email: 'a@b.co\u0000' } }, '')).toBe('user.email');
    expect(pathOfNul({ items: ['ok', { note: 'x\u0000' }] }, '')).toBe('items[1].note');
    expect(pathOfNul({ ['na\u0000me']: 'ok' }, '')).toBe('body (a field name)');
    expect(pathOfNul('raw\u0000', 'body')).toBe('body');
    expect(pathOfNul({ a: 1, b: null, c: [true, 'fine'], d: { e: 'é\u0001' } }, '')).toBeNull();
    expect(pathOfNul(Buffer.from([0, 1, 2]), 'body')).toBeNull();
  });

  it('refuses a request with one in its body, query or path parameters as invalid_parameter', () => {
    expect(() => refuseNulCharacters({ body: { a: 'ok' }, query: {}, params: {} })).not.toThrow();
    for (const request of [
      { body: { a: '\u0000' } },
      { query: { updated_since: '\u0000' } },
      { params: { id: 'dep_\u0000' } },
    ]) {
      expect(() => refuseNulCharacters(request)).toThrow(
        expect.objectContaining({ code: 'invalid_parameter' }),
      );
    }
  });
});

describe('hostileVariables', () => {
  it('finds a NUL in any string or key, at any depth within the limit', () => {
    expect(hostileVariables({ id: 'dep_1', list: ['a', { b: 'c' }] })).toBeNull();
    expect(hostileVariables(null)).toBeNull();
    expect(hostileVariables({ list: ['a', { b: 'c\u0000' }] })).toMatch(/NUL/);
    expect(hostileVariables({ 'k\u0000': 1 })).toMatch(/NUL/);
  });

  it('refuses nesting past the limit without recursing (100,000 levels)', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    expect(hostileVariables(deep)).toMatch(/deeper than 32/);
    let ok: unknown = 'leaf';
    for (let i = 0; i < 32; i += 1) ok = { a: ok };
    expect(hostileVariables(ok)).toBeNull();
  });
});
