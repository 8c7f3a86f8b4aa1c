import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { custom, HttpRequestError, TimeoutError, type CustomTransport } from 'viem';

/** An error the node answered with (JSON-RPC `error`): viem maps its code to its own errors. */
class NodeRpcError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly data: unknown,
  ) {
    super(message);
    this.name = 'NodeRpcError';
  }
}

/**
 * viem's JSON-RPC over node:http with keep-alive sockets, instead of its `http` transport's
 * `fetch`: the job runner makes a dozen node calls a second per chain (block polls, fees,
 * broadcasts, receipts), and WHATWG fetch's streams cost several times the CPU of a plain
 * request per call (bench/notes/payouts-profile.md). No retries: our jobs retry on their own
 * schedule, and a hanging node must not hold one (`timeoutMs`). Failures are viem's own
 * errors (HttpRequestError, TimeoutError), read as its http transport's are.
 */
export function jsonRpcHttp(url: string, timeoutMs: number): CustomTransport {
  return custom(jsonRpcProvider(url, timeoutMs), { retryCount: 0 });
}

/** An EIP-1193 `request` over node:http to one node (what `jsonRpcHttp` wraps for viem). */
export interface JsonRpcProvider {
  request(args: { method: string; params?: unknown }): Promise<unknown>;
}

/** The bare provider behind `jsonRpcHttp`: several nodes share one viem `fallback` (rpc-nodes.ts). */
export function jsonRpcProvider(url: string, timeoutMs: number): JsonRpcProvider {
  const target = new URL(url);
  const https = target.protocol === 'https:';
  const agent = https
    ? new HttpsAgent({ keepAlive: true, maxSockets: 16 })
    : new HttpAgent({ keepAlive: true, maxSockets: 16 });
  const send = https ? httpsRequest : httpRequest;
  let nextId = 0;

  const post = (method: string, body: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const failed = (cause: Error) =>
        reject(
          new HttpRequestError({ url, body: { method }, details: 'connection failed', cause }),
        );
      const req = send(
        target,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', failed);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode === 200) return resolve(text);
            reject(
              new HttpRequestError({
                url,
                body: { method },
                status: res.statusCode,
                details: text.slice(0, 200),
              }),
            );
          });
        },
      );
      req.on('timeout', () => {
        reject(new TimeoutError({ body: { method }, url }));
        req.destroy();
      });
      req.on('error', failed);
      req.end(body);
    });

  return {
    async request({ method, params }: { method: string; params?: unknown }) {
      nextId += 1;
      const body = JSON.stringify({ jsonrpc: '2.0', id: nextId, method, params: params ?? [] });
      const reply = JSON.parse(await post(method, body)) as {
        result?: unknown;
        error?: { code: number; message: string; data?: unknown };
      };
      if (reply.error) {
        throw new NodeRpcError(reply.error.message, reply.error.code, reply.error.data);
      }
      return reply.result;
    },
  };
}
