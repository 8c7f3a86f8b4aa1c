import {
  MAX_ALLOWED_ORIGINS,
  originAllowed,
  parseAllowedOrigins,
} from '../../src/domain/allowed-origins';
import { DomainError, ErrorCode } from '../../src/domain/errors';

function refusal(value: unknown, sandbox = false): DomainError {
  try {
    parseAllowedOrigins(value, sandbox);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe(ErrorCode.InvalidParameter);
    return error as DomainError;
  }
  throw new Error(`accepted ${JSON.stringify(value)}`);
}

describe('allowed_origins parsing', () => {
  it('takes https origins as browsers write them, duplicates dropped, order kept', () => {
    expect(
      parseAllowedOrigins(
        [
          'https://shop.example.com',
          'https://example.com:8443',
          'https://a-b.example',
          'https://shop.example.com',
          'https://203.0.113.7',
          'https://intranet',
        ],
        false,
      ),
    ).toEqual([
      'https://shop.example.com',
      'https://example.com:8443',
      'https://a-b.example',
      'https://203.0.113.7',
      'https://intranet',
    ]);
    expect(parseAllowedOrigins([], false)).toEqual([]);
  });

  it.each([
    ['http', 'http://shop.example.com'],
    ['a trailing slash', 'https://shop.example.com/'],
    ['a path', 'https://shop.example.com/pay'],
    ['a query', 'https://shop.example.com?x=1'],
    ['a wildcard label', 'https://*.example.com'],
    ['a bare wildcard', '*'],
    ['upper case', 'https://Shop.example.com'],
    ['user info', 'https://user@shop.example.com'],
    ['the default port', 'https://shop.example.com:443'],
    ['a port past 65535', 'https://shop.example.com:65536'],
    ['a zero port', 'https://shop.example.com:0'],
    ['a leading-zero port', 'https://shop.example.com:080'],
    ['a leading hyphen', 'https://-shop.example.com'],
    ['an empty label', 'https://shop..example.com'],
    ['a trailing dot', 'https://shop.example.com.'],
    ['unicode (not punycode)', 'https://bücher.example'],
    ['an IPv4 part over 255', 'https://203.0.113.256'],
    ['an IPv6 literal', 'https://[::1]'],
    ['surrounding space', ' https://shop.example.com'],
    ['the null origin', 'null'],
    ['an empty string', ''],
    ['localhost over http outside the sandbox', 'http://localhost:3000'],
  ])('refuses %s', (_why, entry) => {
    expect(refusal([entry]).message).toMatch(/allowed_origins\[0\]/);
  });

  it('refuses what is not a list of strings, and more than the maximum', () => {
    expect(refusal(null).message).toMatch(/list of origins/);
    expect(refusal('https://shop.example.com').message).toMatch(/list of origins/);
    expect(refusal([42]).message).toMatch(/allowed_origins\[0\]/);
    expect(refusal(['https://a.example', { host: 'x' }]).message).toMatch(/allowed_origins\[1\]/);
    expect(refusal([`https://${'a'.repeat(300)}.example`]).message).toMatch(/allowed_origins/);
    const many = Array.from({ length: MAX_ALLOWED_ORIGINS + 1 }, (_, i) => `https://s${i}.example`);
    expect(refusal(many).message).toMatch(/at most 20/);
    expect(parseAllowedOrigins(many.slice(0, MAX_ALLOWED_ORIGINS), false)).toHaveLength(20);
  });

  it('the sandbox also takes http://localhost entries, and the literal any-port form', () => {
    expect(
      parseAllowedOrigins(
        ['http://localhost:3000', 'http://localhost', 'http://localhost:*'],
        true,
      ),
    ).toEqual(['http://localhost:3000', 'http://localhost', 'http://localhost:*']);
    expect(refusal(['http://localhost:*']).message).toMatch(/https:\/\/host/);
    expect(refusal(['http://localhost:99999'], true).message).toMatch(/invalid port/);
    expect(refusal(['http://127.0.0.1:3000'], true).message).toMatch(/localhost/);
    expect(refusal(['http://example.com'], true).message).toMatch(/allowed_origins\[0\]/);
  });
});

describe('originAllowed', () => {
  const list = ['https://shop.example.com', 'https://example.com:8443'];

  it('matches an Origin header exactly against the list', () => {
    expect(originAllowed('https://shop.example.com', list, false)).toBe(true);
    expect(originAllowed('https://example.com:8443', list, false)).toBe(true);
    for (const other of [
      'https://evil.example.com',
      'http://shop.example.com',
      'https://shop.example.com:8443',
      'https://example.com',
      'https://shop.example.com.evil.example',
      'null',
      '',
    ]) {
      expect(originAllowed(other, list, false)).toBe(false);
    }
  });

  it('in the sandbox any http://localhost port is allowed besides the list; never in production', () => {
    for (const local of ['http://localhost:3000', 'http://localhost', 'http://localhost:65535']) {
      expect(originAllowed(local, [], true)).toBe(true);
      expect(originAllowed(local, [], false)).toBe(false);
    }
    for (const near of [
      'https://localhost:3000',
      'http://localhost.evil.example',
      'http://localhost:3000.evil.example',
      'http://127.0.0.1:3000',
      'http://localhost:99999',
    ]) {
      expect(originAllowed(near, [], true)).toBe(false);
    }
  });
});
