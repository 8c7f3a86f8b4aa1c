import http from 'node:http';
import https from 'node:https';
import { promises as dnsPromises, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { isPublicAddress } from '../../domain/webhook-url';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What one attempt came to: an HTTP status, or an error (refused, timed out, blocked). */
export interface WebhookResponse {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

export interface WebhookSenderOptions {
  timeoutMs: number;
  /**
   * Refuse destinations that are, or resolve to, non-public addresses (checked on the address
   * actually connected to). False only when the operator sets WEBHOOK_ALLOW_PRIVATE=true.
   */
  publicOnly: boolean;
  userAgent: string;
  /** Resolves a host name to its addresses (default: the system resolver); injectable for tests. */
  resolve?: HostResolver;
}

export type HostResolver = (hostname: string) => Promise<LookupAddress[]>;

const MAX_RESPONSE_BYTES = 64 * 1024;

/** What the delivery log says of a refused destination: nothing about what is there. */
export const DESTINATION_NOT_ALLOWED = 'destination address not allowed';

export class BlockedAddressError extends Error {
  constructor() {
    super(DESTINATION_NOT_ALLOWED);
  }
}

/**
 * Asks DNS servers directly (c-ares) rather than through getaddrinfo: getaddrinfo runs on libuv's
 * four-thread pool, which names that answer slowly (chosen by a merchant) could fill, stalling
 * everything else on it. Answers are bounded by the timeout; a name that fails is refused.
 */
const dnsResolver = new dnsPromises.Resolver({ timeout: 2000, tries: 2 });

export const systemResolver: HostResolver = async (hostname) => {
  // RFC 6761: localhost names are loopback, whatever a DNS server might say.
  if (/(^|\.)localhost\.?$/i.test(hostname)) {
    return [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ];
  }
  const [v4, v6] = await Promise.allSettled([
    dnsResolver.resolve4(hostname),
    dnsResolver.resolve6(hostname),
  ]);
  const addresses: LookupAddress[] = [
    ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
    ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
  ];
  if (addresses.length === 0) {
    throw v4.status === 'rejected' ? v4.reason : new Error(`${hostname} has no address`);
  }
  return addresses;
};

/**
 * The socket's DNS lookup. With `publicOnly`, it fails when any address of the host is not
 * public. It runs at connect time and hands the socket only the addresses it checked, so a
 * name that changes its answer after the endpoint was configured (DNS rebinding) is still
 * refused.
 */
export function checkedLookup(resolve: HostResolver, publicOnly: boolean): LookupFunction {
  return (hostname, options, callback) => {
    const family = typeof options === 'number' ? options : (options?.family ?? 0);
    resolve(hostname).then(
      (all) => {
        const addresses = all.filter((a) => family === 0 || a.family === family);
        if (addresses.length === 0) {
          const error: NodeJS.ErrnoException = new Error(`${hostname} has no address`);
          error.code = 'ENOTFOUND';
          return callback(error, '', 0);
        }
        if (publicOnly && addresses.some((a) => !isPublicAddress(a.address))) {
          return callback(new BlockedAddressError(), '', 0);
        }
        if ((options as { all?: boolean })?.all) {
          return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        }
        return callback(null, addresses[0].address, addresses[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/** Every address the host resolves to is public (for checking a URL when it is configured). */
export async function resolvesToPublicOnly(
  hostname: string,
  resolve: HostResolver = systemResolver,
): Promise<boolean> {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return isPublicAddress(host);
  try {
    const addresses = await resolve(host);
    return addresses.length > 0 && addresses.every((a) => isPublicAddress(a.address));
  } catch {
    return false;
  }
}

/**
 * POSTs webhooks, one connection per attempt. Redirects are not followed (a 3xx is a failed
 * attempt). One deadline, `timeoutMs` from the start of `send`, covers the whole exchange:
 * name lookup, connect, TLS, writing the request, the answer's headers and its body. At the
 * deadline, or once 64 KiB of the body were read, or when the body ends, the socket is
 * destroyed, so no connection outlives its attempt (API.md, v0.3). The attempt's result is
 * the answer's status code; what the body says is never used.
 *
 * No keep-alive: a pooled socket would outlive the attempt that opened it, held open by any
 * receiver that does not close it (and a merchant can name any number of hosts).
 */
export class HttpWebhookSender {
  /** Undefined: Node's own lookup (no address check, no injected resolver). */
  private readonly lookup: LookupFunction | undefined;

  constructor(private readonly options: WebhookSenderOptions) {
    this.lookup =
      options.publicOnly || options.resolve
        ? checkedLookup(options.resolve ?? systemResolver, options.publicOnly)
        : undefined;
  }

  send(request: WebhookRequest): Promise<WebhookResponse> {
    const started = performance.now();
    const result = (statusCode: number | null, error: string | null): WebhookResponse => ({
      statusCode,
      latencyMs: Math.max(0, Math.round(performance.now() - started)),
      error,
    });
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return Promise.resolve(result(null, 'invalid URL'));
    }
    // An IP literal is connected to without a lookup, so it is checked here. WHATWG URL has
    // already normalised other spellings of it (http://2130706433/, http://0x7f.1/).
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (this.options.publicOnly && isIP(host) && !isPublicAddress(host)) {
      return Promise.resolve(result(null, DESTINATION_NOT_ALLOWED));
    }
    const secure = url.protocol === 'https:';
    const body = Buffer.from(request.body, 'utf8');
    const { timeoutMs, userAgent } = this.options;
    return new Promise((resolve) => {
      let statusCode: number | null = null;
      let ended = false;
      let socket: Socket | undefined;
      const req = (secure ? https : http).request(url, {
        method: 'POST',
        // A fresh agent without keep-alive: this attempt's socket is its own.
        agent: false,
        headers: {
          ...request.headers,
          'content-type': 'application/json',
          'content-length': String(body.length),
          'user-agent': userAgent,
          connection: 'close',
        },
        ...(this.lookup ? { lookup: this.lookup } : {}),
      });
      const deadline = setTimeout(() => end(`no answer within ${timeoutMs} ms`), timeoutMs);
      /** Ends the attempt once: the socket is destroyed whatever state it is in. */
      function end(error: string | null): void {
        if (ended) return;
        ended = true;
        clearTimeout(deadline);
        req.destroy();
        socket?.destroy();
        // Once an answer came, its status is the result (a body cut short changes nothing).
        resolve(result(statusCode, statusCode === null ? error : null));
      }
      req.on('socket', (s) => (socket = s));
      req.on('response', (res) => {
        statusCode = res.statusCode ?? null;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= MAX_RESPONSE_BYTES) end(null);
        });
        res.on('end', () => end(null));
        res.on('error', () => end(null));
        res.on('close', () => end(null));
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (error instanceof BlockedAddressError) return end(DESTINATION_NOT_ALLOWED);
        end(error.code ? `${error.code}: ${error.message}` : error.message);
      });
      req.end(body);
    });
  }

  /** Nothing is pooled: each attempt's socket is destroyed when the attempt ends. */
  close(): void {}
}
