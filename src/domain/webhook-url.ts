import { BlockList, isIP } from 'node:net';
import { invalidParameter } from './errors';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * A merchant's webhook URL, as given: absolute http(s), no credentials, no fragment. Production
 * requires https (the body carries payment data). Whether its host resolves to a public
 * address is checked separately (`isPublicAddress`), at configuration and at every attempt.
 */
export function parseWebhookUrl(value: string, options: { requireHttps: boolean }): URL {
  if (value.length === 0) throw invalidParameter('url', 'must not be empty');
  if (value.length > MAX_WEBHOOK_URL_LENGTH) {
    throw invalidParameter('url', `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidParameter('url', 'must be an absolute URL, e.g. https://example.com/webhooks');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalidParameter('url', 'must use https (or http in the sandbox)');
  }
  if (options.requireHttps && url.protocol !== 'https:') {
    throw invalidParameter('url', 'must use https in production');
  }
  if (url.username || url.password) {
    throw invalidParameter('url', 'must not contain credentials');
  }
  if (url.hash) throw invalidParameter('url', 'must not contain a fragment');
  if (url.hostname === '') throw invalidParameter('url', 'must name a host');
  return url;
}

/** Loopback, private, link-local, shared, multicast, reserved and documentation ranges. */
const NOT_PUBLIC = (() => {
  const list = new BlockList();
  const v4: Array<[string, number]> = [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.88.99.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ];
  for (const [network, prefix] of v4) list.addSubnet(network, prefix, 'ipv4');
  const v6: Array<[string, number]> = [
    ['::', 128],
    ['::1', 128],
    ['64:ff9b::', 96],
    ['100::', 64],
    ['2001:db8::', 32],
    ['fc00::', 7],
    ['fe80::', 10],
    ['fec0::', 10],
    ['ff00::', 8],
  ];
  for (const [network, prefix] of v6) list.addSubnet(network, prefix, 'ipv6');
  return list;
})();

/** An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is judged by its IPv4 address. */
function unmapped(address: string): string {
  const match = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return match ? match[1] : address;
}

/** True only for a literal IP address that is routable on the public internet. */
export function isPublicAddress(address: string): boolean {
  const plain = unmapped(address);
  const family = isIP(plain);
  if (family === 0) return false;
  return !NOT_PUBLIC.check(plain, family === 4 ? 'ipv4' : 'ipv6');
}
