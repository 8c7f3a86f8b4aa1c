import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';

/**
 * The client address of a request Fastify never saw (the websocket's upgrade), decided as
 * Fastify decides `request.ip` under the same TRUST_PROXY: the peer, or the nearest address in
 * X-Forwarded-For that is not a trusted proxy.
 */
export function clientAddressResolver(
  trustProxy: boolean | number | string[],
): (request: IncomingMessage) => string {
  const trust =
    trustProxy === true
      ? () => true
      : trustProxy === false
        ? () => false
        : typeof trustProxy === 'number'
          ? (_address: string, hop: number) => hop < trustProxy
          : proxyAddr.compile(trustProxy);
  return (request) => proxyAddr(request, trust);
}
