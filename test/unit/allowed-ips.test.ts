import {
  allowedIpMatcher,
  cachedAllowedIpMatcher,
  MAX_ALLOWED_IPS,
  parseAllowedIps,
} from '../../src/domain/allowed-ips';
import { DomainError, ErrorCode } from '../../src/domain/errors';

function refusal(value: unknown): DomainError {
  try {
    parseAllowedIps(value);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error(`accepted ${JSON.stringify(value)}`);
}

describe('allowed_ips parsing', () => {
  it('takes null or absent as any address', () => {
    expect(parseAllowedIps(undefined)).toBeNull();
    expect(parseAllowedIps(null)).toBeNull();
  });

  it('takes IPv4 and IPv6 addresses and CIDRs, trimmed', () => {
    expect(
      parseAllowedIps([' 203.0.113.7', '198.51.100.0/24', '2001:db8::/32', '::1', '0.0.0.0/0']),
    ).toEqual(['203.0.113.7', '198.51.100.0/24', '2001:db8::/32', '::1', '0.0.0.0/0']);
  });

  it.each([
    ['an empty list', []],
    ['not a list', '203.0.113.7'],
    ['a number', [7]],
    ['a host name', ['example.com']],
    ['an IPv4 prefix over 32', ['10.0.0.0/33']],
    ['an IPv6 prefix over 128', ['2001:db8::/129']],
    ['a negative prefix', ['10.0.0.0/-1']],
    ['an empty prefix', ['10.0.0.0/']],
    ['two slashes', ['10.0.0.0/8/8']],
    ['an octet over 255', ['10.0.0.256']],
    ['a range', ['10.0.0.1-10.0.0.9']],
    ['a very long entry', [`${'1'.repeat(70)}`]],
  ])('refuses %s with invalid_parameter', (_label, value) => {
    expect(refusal(value).code).toBe(ErrorCode.InvalidParameter);
  });

  it(`takes at most ${MAX_ALLOWED_IPS} entries`, () => {
    const many = Array.from({ length: MAX_ALLOWED_IPS }, (_, i) => `10.0.${i}.1`);
    expect(parseAllowedIps(many)).toHaveLength(MAX_ALLOWED_IPS);
    expect(refusal([...many, '10.1.0.1']).message).toMatch(/at most 50/);
  });
});

describe('allowed_ips matching', () => {
  it('matches bare IPv4 addresses exactly', () => {
    const allows = allowedIpMatcher(['127.0.0.2']);
    expect(allows('127.0.0.2')).toBe(true);
    expect(allows('127.0.0.1')).toBe(false);
    expect(allows('127.0.0.20')).toBe(false);
  });

  it('matches an IPv4 CIDR up to its edges and not past them', () => {
    const allows = allowedIpMatcher(['198.51.100.0/24']);
    expect(allows('198.51.100.0')).toBe(true);
    expect(allows('198.51.100.255')).toBe(true);
    expect(allows('198.51.99.255')).toBe(false);
    expect(allows('198.51.101.0')).toBe(false);
  });

  it('treats /32 as one address and /0 as every IPv4 address', () => {
    expect(allowedIpMatcher(['127.0.0.2/32'])('127.0.0.2')).toBe(true);
    expect(allowedIpMatcher(['127.0.0.2/32'])('127.0.0.3')).toBe(false);
    expect(allowedIpMatcher(['0.0.0.0/0'])('8.8.8.8')).toBe(true);
  });

  it('matches IPv6 addresses and CIDRs in any spelling', () => {
    const allows = allowedIpMatcher(['2001:db8::/32', '::1']);
    expect(allows('2001:db8:ffff::1')).toBe(true);
    expect(allows('2001:DB8:0:0::7')).toBe(true);
    expect(allows('2001:db9::1')).toBe(false);
    expect(allows('0:0:0:0:0:0:0:1')).toBe(true);
    expect(allows('::2')).toBe(false);
  });

  it('matches an IPv4-mapped IPv6 peer against the IPv4 rules', () => {
    const allows = allowedIpMatcher(['203.0.113.0/24']);
    expect(allows('::ffff:203.0.113.9')).toBe(true);
    expect(allows('::FFFF:203.0.113.9')).toBe(true);
    expect(allows('::ffff:203.0.114.9')).toBe(false);
  });

  it('never matches IPv4 rules with an unrelated IPv6 address, nor anything that is not an IP', () => {
    const allows = allowedIpMatcher(['0.0.0.0/0']);
    expect(allows('2001:db8::1')).toBe(false);
    expect(allows('')).toBe(false);
    expect(allows('localhost')).toBe(false);
  });

  it('lets a stored entry that is not an address allow nothing (rather than fail)', () => {
    const allows = allowedIpMatcher(['not-an-ip', '10.0.0.1']);
    expect(allows('10.0.0.1')).toBe(true);
    expect(allows('10.0.0.2')).toBe(false);
  });

  it('builds one matcher per distinct list', () => {
    expect(cachedAllowedIpMatcher(['10.0.0.1'])).toBe(cachedAllowedIpMatcher(['10.0.0.1']));
    expect(cachedAllowedIpMatcher(['10.0.0.1'])).not.toBe(cachedAllowedIpMatcher(['10.0.0.2']));
  });
});
