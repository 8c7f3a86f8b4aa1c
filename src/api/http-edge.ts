import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import { errorBody, ErrorCode } from '../domain/errors';
import { randomUlid } from '../domain/ids';
import { AddressRateLimited, type AddressLimiter } from './address-limit';
import { mapError } from './error-mapping';
import { graphqlErrorBody } from './graphql/errors';
import { parseJsonWithDepthLimit } from './json-body';
import { proxyTrust } from './client-address';

export const BODY_LIMIT_BYTES = 64 * 1024;
/** Longer than any id we issue (ids are under 40 characters), short enough to refuse early. */
export const MAX_PARAM_LENGTH = 200;
const INCOMING_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * One log line per request instead of Fastify's two: "request completed" (or "request
 * errored") carries the request too (method, url, remote address), and "incoming request" is
 * not written. Logging costs a gateway per request about as much as a deposit read's SQL does
 * (bench/notes/reads.md); a request that never completes still shows in the metrics.
 */
class OneLineRequestLogs extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error) {
      reply.log.error(
        { req: request, res: reply, err: error, responseTime: reply.elapsedTime },
        'request errored',
      );
    } else {
      reply.log.info(
        { req: request, res: reply, responseTime: reply.elapsedTime },
        'request completed',
      );
    }
  }
}

const requestIdOf = (req: IncomingMessage): string => {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && INCOMING_REQUEST_ID.test(incoming)
    ? incoming
    : `req_${randomUlid()}`;
};

/**
 * What Fastify refuses before any route or hook runs (a URL that is not valid percent-encoding,
 * a path parameter longer than any id), in the API's error shape like everything else.
 */
function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('x-request-id', request.id);
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    // No id of ours is that long, so nothing can be found under it.
    return reply
      .code(404)
      .send(errorBody(ErrorCode.NotFound, 'Not found: a path segment is longer than any id'));
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    return reply
      .code(400)
      .send(errorBody(ErrorCode.InvalidParameter, 'The URL is not valid percent-encoded UTF-8'));
  }
  return reply.code(400).send(errorBody(ErrorCode.InvalidParameter, 'Invalid request'));
}

/** The request line of bytes Node refused, as far as it can be read: method and path. */
function requestLineOf(error: { rawPacket?: unknown }) {
  // Node hands the bytes it refused as a Buffer (Fastify's type describes its JSON form).
  const raw = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.subarray(0, 2048) : undefined;
  const line = /^(\S*)[ \t]+(\S*)/.exec(raw?.toString('latin1') ?? '');
  return { method: line?.[1] ?? '', path: line?.[2] ?? '' };
}

/**
 * A request Node's HTTP parser cannot read (bad request line, headers too large): no Fastify
 * request exists, so the answer is written on the socket, still in the error shape (GraphQL's
 * for /graphql, no body for HEAD). Always 400: the contract's `invalid_parameter` is 400.
 */
function clientError(error: { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const message =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'Request headers are too large'
      : 'Malformed HTTP request';
  const { method, path } = requestLineOf(error);
  const body =
    method === 'HEAD'
      ? ''
      : JSON.stringify(
          /^\/(admin\/)?graphql(\?|$)/.test(path)
            ? graphqlErrorBody(ErrorCode.InvalidParameter, message)
            : errorBody(ErrorCode.InvalidParameter, message),
        );
  socket.end(
    'HTTP/1.1 400 Bad Request\r\n' +
      'connection: close\r\ncontent-type: application/json\r\n' +
      `x-request-id: req_${randomUlid()}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n` +
      body,
  );
}

/**
 * The Fastify options both listeners (public API and internal) share. `trustProxy` is
 * TRUST_PROXY, as the websocket's upgrade reads it too (client-address.ts).
 */
export function edgeServerOptions(
  logger: Logger,
  trustProxy: false | number | string[],
): FastifyServerOptions {
  return {
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    requestIdHeader: false,
    logController: new OneLineRequestLogs(),
    genReqId: requestIdOf,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
    // `false` as is (the plain request, no header read); else the one trust function.
    trustProxy: trustProxy === false ? false : proxyTrust(trustProxy),
    // Our own 503 answers requests that arrive while closing, in the API's error shape.
    return503OnClosing: false,
    ajv: { customOptions: { removeAdditional: false } },
  };
}

/**
 * One error path for a listener: the request id on every answer (added first, before any hook
 * can refuse), JSON bodies parsed with a depth limit, every error mapped to the error shape
 * (GraphQL paths in GraphQL's), and each failed authentication counted against the address.
 */
export function installErrorPath(
  app: FastifyInstance,
  options: { limiter: AddressLimiter; isGraphQL: (request: FastifyRequest) => boolean },
): void {
  const { limiter, isGraphQL } = options;
  // Callback style: an async hook costs every request a promise and a turn of the microtask queue.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  parseJsonWithDepthLimit(app);

  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    // Fastify refuses some requests before any hook ran (a method no route has, on an
    // HTTP/0.9 request line): their answers need the id too.
    reply.header('x-request-id', request.id);
    let refusal = error instanceof AddressRateLimited ? error : null;
    if (!refusal && error instanceof Error && mapError(error).code === ErrorCode.Unauthorized) {
      // The request failed anyway: a count the store cannot take is skipped, not a 5xx.
      refusal = await limiter.countFailure(request.ip).catch((countError: unknown) => {
        request.log.warn({ err: countError }, 'failed authentication not counted');
        return null;
      });
    }
    const answered = refusal ?? error;
    const mapped = mapError(answered);
    if (mapped.unexpected) request.log.error({ err: error }, 'unexpected error');
    else if (mapped.status >= 500) request.log.warn({ err: error }, mapped.message);
    if (refusal) reply.header('retry-after', String(refusal.retryAfterSeconds));
    else if (mapped.code === ErrorCode.RateLimited && !reply.hasHeader('retry-after')) {
      reply.header('retry-after', '60');
    }
    const body = isGraphQL(request)
      ? graphqlErrorBody(mapped.code, mapped.message)
      : errorBody(mapped.code, mapped.message, mapped.details);
    return reply.code(mapped.status).type('application/json').send(body);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const shown = path.length > 100 ? `${path.slice(0, 100)}...` : path;
    return reply
      .code(404)
      .send(errorBody(ErrorCode.NotFound, `No route ${request.method} ${shown}`));
  });
}
