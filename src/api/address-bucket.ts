import { isIP } from 'node:net';
import { ipv6ToHextets } from '../domain/public-address';

/** Longest bucket kept for something that is not an IP address (a misconfigured proxy's header). */
const MAX_OTHER_LENGTH = 64;

/**
 * The bucket a client address is counted in by the per-address limit (API.md: "IPv6 clients
 * are counted per /64"): an IPv4 address is itself; an IPv6 address is its /64, written one
 * way (`2001:db8:aa:bb::/64`), because one subscriber or host is routinely given a whole /64
 * and could otherwise draw 2^64 fresh counts; an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`,
 * what a dual-stack listener reports for an IPv4 peer) is the IPv4 address it carries.
 */
export function addressBucket(address: string): string {
  const family = isIP(address);
  if (family === 4) return address;
  const plain = address.replace(/^\[|\]$/g, '').split('%')[0];
  if (family === 0 && isIP(plain) !== 6) return address.slice(0, MAX_OTHER_LENGTH);
  const h = ipv6ToHextets(plain);
  if (h[0] === 0 && h[1] === 0 && h[2] === 0 && h[3] === 0 && h[4] === 0 && h[5] === 0xffff) {
    return `${h[6] >> 8}.${h[6] & 0xff}.${h[7] >> 8}.${h[7] & 0xff}`;
  }
  return `${h[0].toString(16)}:${h[1].toString(16)}:${h[2].toString(16)}:${h[3].toString(16)}::/64`;
}
