import http from 'node:http';
import https from 'node:https';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
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
  /** Production: refuse hosts that resolve to private or loopback addresses (checked at connect). */
  publicOnly: boolean;
  userAgent: string;
}

const MAX_RESPONSE_BYTES = 64 * 1024;

export class BlockedAddressError extends Error {
  constructor(host: string) {
    super(`${host} resolves to a private or loopback address`);
  }
}

/**
 * A DNS lookup that fails when any address of the host is not public. It runs at connect time,
 * so a name that changes its answer after the endpoint was configured (DNS rebinding) is still
 * refused.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address))) {
      return callback(new BlockedAddressError(hostname), '', 0);
    }
    if ((options as { all?: boolean }).all) {
      return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    }
    return callback(null, addresses[0].address, addresses[0].family);
  });
};

/** Every address the host resolves to is public (for checking a URL when it is configured). */
export async function resolvesToPublicOnly(hostname: string): Promise<boolean> {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return isPublicAddress(host);
  return new Promise((resolve) => {
    dnsLookup(host, { all: true }, (error, addresses) => {
      resolve(!error && addresses.length > 0 && addresses.every((a) => isPublicAddress(a.address)));
    });
  });
}

/**
 * POSTs webhooks over keep-alive connections. Redirects are not followed (a 3xx is a failed
 * attempt). The whole exchange is bounded by `timeoutMs`; the response body is read up to
 * 64 KiB and otherwise ignored.
 */
export class HttpWebhookSender {
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64 });

  constructor(private readonly options: WebhookSenderOptions) {}

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
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (this.options.publicOnly && isIP(host) && !isPublicAddress(host)) {
      return Promise.resolve(result(null, new BlockedAddressError(host).message));
    }
    const secure = url.protocol === 'https:';
    const body = Buffer.from(request.body, 'utf8');
    return new Promise((resolve) => {
      let settled = false;
      const req = (secure ? https : http).request(url, {
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        headers: {
          ...request.headers,
          'content-type': 'application/json',
          'content-length': String(body.length),
          'user-agent': this.options.userAgent,
        },
        ...(this.options.publicOnly ? { lookup: publicOnlyLookup } : {}),
      });
      const timer = setTimeout(() => {
        finish(null, `no answer within ${this.options.timeoutMs} ms`);
        req.destroy();
      }, this.options.timeoutMs);
      function finish(statusCode: number | null, error: string | null): void {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result(statusCode, error));
      }
      req.on('response', (res) => {
        finish(res.statusCode ?? null, null);
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) res.destroy();
        });
        res.on('error', () => undefined);
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        finish(null, error.code ? `${error.code}: ${error.message}` : error.message);
      });
      req.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
