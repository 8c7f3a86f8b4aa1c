import { BlockList, isIP } from 'node:net';
import { DomainError, ErrorCode } from './errors';

/** At most this many entries in a key's `allowed_ips`. */
export const MAX_ALLOWED_IPS = 50;

const invalid = (message: string) =>
  new DomainError(ErrorCode.InvalidParameter, `Invalid parameter allowed_ips: ${message}`);

/** `a.b.c.d` as an IPv6 peer sees it (`::ffff:a.b.c.d`), the IPv4 address inside; else null. */
const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * Checks a key's `allowed_ips` as the API takes it: absent or null means any address; else a
 * list of 1 to 50 IPv4 or IPv6 addresses or CIDRs (`203.0.113.0/24`, `2001:db8::/32`).
 * Returns the entries trimmed, or null.
 */
export function parseAllowedIps(value: unknown): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw invalid('must be a list of addresses or CIDRs, or null');
  if (value.length === 0) throw invalid('must not be empty (send null to allow any address)');
  if (value.length > MAX_ALLOWED_IPS) throw invalid(`at most ${MAX_ALLOWED_IPS} entries`);
  return value.map((entry, index) => {
    if (typeof entry !== 'string' || entry.length > 64) {
      throw invalid(`entry ${index} is not an address or CIDR`);
    }
    const text = entry.trim();
    if (!ruleOf(text))
      throw invalid(`entry ${index} (${JSON.stringify(text)}) is not an address or CIDR`);
    return text;
  });
}

interface Rule {
  address: string;
  family: 'ipv4' | 'ipv6';
  prefix: number | null;
}

/** One entry read as an address or a subnet, or null when it is neither. */
function ruleOf(text: string): Rule | null {
  const [address, prefixText, ...rest] = text.split('/');
  if (rest.length > 0) return null;
  const version = isIP(address);
  if (version === 0) return null;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  if (prefixText === undefined) return { address, family, prefix: null };
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (prefix > (version === 4 ? 32 : 128)) return null;
  return { address, family, prefix };
}

/** Whether an address may use the key. */
export type AddressMatcher = (address: string) => boolean;

/**
 * A matcher over checked entries (`parseAllowedIps`' output, as stored). An IPv4-mapped IPv6
 * peer (`::ffff:a.b.c.d`, what a dual-stack listener reports) is matched as its IPv4 address.
 * A client address that is not an IP at all never matches.
 */
export function allowedIpMatcher(entries: readonly string[]): AddressMatcher {
  const list = new BlockList();
  for (const entry of entries) {
    const rule = ruleOf(entry);
    // Stored entries were checked on the way in; one that is not (a row written by hand)
    // allows nothing rather than failing every request.
    if (!rule) continue;
    if (rule.prefix === null) list.addAddress(rule.address, rule.family);
    else list.addSubnet(rule.address, rule.prefix, rule.family);
  }
  return (address) => {
    const mapped = MAPPED_IPV4.exec(address);
    const plain = mapped ? mapped[1] : address;
    const version = isIP(plain);
    if (version === 0) return false;
    return list.check(plain, version === 4 ? 'ipv4' : 'ipv6');
  };
}

/**
 * Matchers are built once per distinct list, not per request: a key's list is read on every
 * request, and building a BlockList costs more than matching one. Bounded: the oldest list
 * built is dropped first.
 */
const cache = new Map<string, AddressMatcher>();
const CACHE_ENTRIES = 1000;

export function cachedAllowedIpMatcher(entries: readonly string[]): AddressMatcher {
  const cacheKey = entries.join(',');
  let matcher = cache.get(cacheKey);
  if (!matcher) {
    if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    matcher = allowedIpMatcher(entries);
    cache.set(cacheKey, matcher);
  }
  return matcher;
}
