import { isIP } from 'node:net';

/**
 * Whether an IP address is one a webhook may be sent to: routable on the public internet.
 * Everything else (loopback, private, shared, link-local, unique-local, cloud metadata,
 * unspecified, multicast, broadcast, reserved, documentation and benchmarking ranges) is
 * refused, and so are IPv6 addresses that smuggle such an IPv4 address inside them.
 *
 * IPv6 is judged by an allow-list (only global unicast, 2000::/3, can be public) rather than
 * a block-list, so a range added to the registry later is refused until it is understood.
 */
export function isPublicAddress(address: string): boolean {
  const plain = address.replace(/^\[|\]$/g, '');
  // A zone id (fe80::1%eth0) only has meaning on a local link.
  if (plain.includes('%')) return false;
  const family = isIP(plain);
  if (family === 4) return isPublicIpv4(ipv4ToNumber(plain));
  if (family === 6) return isPublicIpv6(ipv6ToHextets(plain));
  return false;
}

/** [network, prefix length]: IPv4 ranges that are not globally reachable (IANA special-purpose). */
const NON_PUBLIC_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // shared address space, carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, including the 169.254.169.254 metadata service
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255 broadcast
];

const V4_RANGES = NON_PUBLIC_V4.map(([network, prefix]) => ({
  network: ipv4ToNumber(network),
  mask: prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0,
}));

function isPublicIpv4(value: number): boolean {
  return !V4_RANGES.some(({ network, mask }) => (value & mask) >>> 0 === network);
}

function ipv4ToNumber(address: string): number {
  return address.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0) >>> 0;
}

/** [hextet prefix, prefix length]: IPv6 ranges inside 2000::/3 that are not public. */
const NON_PUBLIC_V6_GLOBAL: ReadonlyArray<readonly [number[], number]> = [
  [[0x2001, 0x0002, 0x0000], 48], // benchmarking
  [[0x2001, 0x0010], 28], // ORCHID (deprecated)
  [[0x2001, 0x0020], 28], // ORCHIDv2
  [[0x2001, 0x0db8], 32], // documentation
  [[0x3fff], 20], // documentation (RFC 9637)
];

function isPublicIpv6(h: number[]): boolean {
  // IPv4-mapped ::ffff:a.b.c.d: the socket connects to a.b.c.d.
  if (startsWith(h, [0, 0, 0, 0, 0, 0xffff], 96)) return isPublicIpv4(low32(h));
  // IPv4-compatible ::a.b.c.d (deprecated; includes :: and ::1): refused as a whole.
  if (startsWith(h, [0, 0, 0, 0, 0, 0], 96)) return false;
  // NAT64 well-known prefix: the translator connects to the embedded IPv4 address. Judged by
  // it, because an IPv6-only host behind DNS64 reaches every IPv4 site this way.
  if (startsWith(h, [0x0064, 0xff9b, 0, 0, 0, 0], 96)) return isPublicIpv4(low32(h));
  // Local-use NAT64 (64:ff9b:1::/48): translates into the operator's own network.
  if (startsWith(h, [0x0064, 0xff9b, 0x0001], 48)) return false;
  // Outside global unicast: unique-local (fc00::/7, fd00:ec2::254), link-local, site-local,
  // multicast, discard-only, reserved.
  if ((h[0] & 0xe000) !== 0x2000) return false;
  // 6to4: the relay forwards to the IPv4 address in bits 16-48.
  if (h[0] === 0x2002) return isPublicIpv4(((h[1] << 16) | h[2]) >>> 0);
  // Teredo: server IPv4 in bits 32-64, client IPv4 in the last 32 bits, inverted.
  if (h[0] === 0x2001 && h[1] === 0) {
    return isPublicIpv4(((h[2] << 16) | h[3]) >>> 0) && isPublicIpv4(~low32(h) >>> 0);
  }
  return !NON_PUBLIC_V6_GLOBAL.some(([prefix, length]) => startsWith(h, prefix, length));
}

function low32(h: number[]): number {
  return ((h[6] << 16) | h[7]) >>> 0;
}

/** Whether the first `length` bits of `h` equal those of `prefix` (missing hextets are 0). */
function startsWith(h: number[], prefix: number[], length: number): boolean {
  for (let i = 0; i * 16 < length; i += 1) {
    const bits = Math.min(16, length - i * 16);
    const mask = (0xffff << (16 - bits)) & 0xffff;
    if ((h[i] & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** Eight 16-bit groups of a valid IPv6 address (as `isIP` accepts it). */
export function ipv6ToHextets(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = ipv4ToNumber(dotted[1]);
    text = `${text.slice(0, -dotted[1].length)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  if (tail === undefined) return left;
  const right = parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}
