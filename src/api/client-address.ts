import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';

/** Whether the address at `hop` (0: the socket's peer) is a proxy of ours. */
export type ProxyTrust = (address: string, hop: number) => boolean;

/**
 * TRUST_PROXY as one trust function, for Fastify's `request.ip` and the websocket's upgrade
 * alike: a hop count trusts that many hops from the socket (TRUST_PROXY=true is 1, config.ts);
 * a list trusts those proxies. A function, because Fastify's own reading of a number trusts no
 * hop at all, while the upgrade trusted them: the two transports saw different addresses.
 */
export function proxyTrust(trustProxy: false | number | string[]): ProxyTrust {
  if (trustProxy === false) return () => false;
  if (typeof trustProxy === 'number') return (_address, hop) => hop < trustProxy;
  return proxyAddr.compile(trustProxy);
}

/**
 * The client address of a request Fastify never saw (the websocket's upgrade), decided as
 * Fastify decides `request.ip` under the same TRUST_PROXY: the peer, or the nearest address in
 * X-Forwarded-For (from the right) that is not a trusted proxy.
 */
export function clientAddressResolver(
  trustProxy: false | number | string[],
): (request: IncomingMessage) => string {
  const trust = proxyTrust(trustProxy);
  return (request) => proxyAddr(request, trust);
}
