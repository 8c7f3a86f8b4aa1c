import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, ErrorCode, errorBody } from '../domain/errors';
import type { IdempotencyClaim, IdempotencyScope, IdempotencyService } from '../system';
import { openRequestTransaction, type RequestTransaction } from '../db/request-transaction';
import { mapError } from './error-mapping';
import { graphqlErrorBody } from './graphql/errors';
import './principal';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

const VALID_KEY = /^[\x20-\x7e]{1,255}$/;

const LOST =
  'The lease of this Idempotency-Key ended before the request finished and another request took the key over: this one was undone. Retry to get the answer';

/** JSON with object keys sorted at every depth, so equal bodies hash equally. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
    const source = value as Record<string, unknown>;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(source).sort()) {
      if (source[key] !== undefined) sorted[key] = sortKeys(source[key]);
    }
    return sorted;
  }
  return value;
}

export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method}\n${path}\n${canonicalJson(body)}`)
    .digest('hex');
}

interface Pending {
  claim: IdempotencyClaim;
  /** Set once the outcome is handled (stored or abandoned), so it is handled once. */
  settled: boolean;
  /** Renews the claim while the request runs (cleared once settled). */
  heartbeat: NodeJS.Timeout;
  /** The request's EntityManager outside its transaction: the claim's renewals and release. */
  pool: EntityManager;
  /** Everything the request does, and at its end its stored answer: one commit. */
  transaction: RequestTransaction;
}

const pending = new WeakMap<FastifyRequest, Pending>();

/** The error answer sent instead of a response whose transaction did not commit. */
function failedAnswer(request: FastifyRequest, reply: FastifyReply, error: unknown): string {
  const mapped = mapError(error);
  reply.code(mapped.status).type('application/json');
  const graphql = request.routeOptions.url === '/graphql';
  return JSON.stringify(
    graphql
      ? graphqlErrorBody(mapped.code, mapped.message)
      : errorBody(mapped.code, mapped.message, mapped.details),
  );
}

/** The JSON text of a response (null: no body), or not ok when it is not JSON. */
function payloadText(payload: unknown): { ok: true; text: string | null } | { ok: false } {
  if (payload === undefined || payload === null || payload === '') return { ok: true, text: null };
  const text =
    typeof payload === 'string'
      ? payload
      : Buffer.isBuffer(payload)
        ? payload.toString('utf8')
        : null;
  // Streams (never produced by this API's routes) cannot be captured.
  if (text === null) return { ok: false };
  try {
    JSON.parse(text);
    return { ok: true, text };
  } catch {
    return { ok: false };
  }
}

/**
 * `Idempotency-Key` on every POST (REST and `POST /graphql` alike): the first response (status
 * and JSON body) is stored for 24 h and replayed with `Idempotent-Replayed: true`.
 *
 * - Runs in `preHandler`: after authentication (onRequest), rate limiting (preParsing) and body
 *   parsing and schema validation. Requests refused before that (401, 429, 400 from schema
 *   validation, 413, malformed JSON) therefore never claim a key and are not stored: they had
 *   no effect, and the client may fix the request and retry with the same key. Intended.
 * - Only for callers authenticated with a secret key; keys are scoped per merchant (every
 *   secret key of a merchant shares them). The response is stored as the exact JSON text sent,
 *   sealed with ENCRYPTION_KEY (it may hold a client secret or a webhook secret): a replay is
 *   byte-identical, as `application/json`.
 * - The request hash covers method, path (without query) and the canonical JSON of the
 *   validated body: the same key with another request is `idempotency_conflict` (409).
 * - A claimed request runs in one database transaction (`openRequestTransaction`: the
 *   services' own transactions join it). Its answer below 500 (including a 4xx domain error)
 *   is written in `onSend`, before the response is written, as that transaction's last
 *   statement, and then it commits: however the process dies, the effect and its stored answer
 *   exist together or not at all, and a retry replays the one or runs anew. A 5xx, a thrown
 *   error (the error handler's response passes through `onSend` too) rolls the request back
 *   and releases the key; a response that is not JSON commits and releases it.
 * - A client that disconnects does not stop the handler: Fastify still sends its result
 *   through `onSend`, so the outcome is stored (or released) and a retry replays it.
 *   `onResponse` rolls back and releases any key still unsettled as a last resort.
 * - While the request runs, its claim is renewed every third of IDEMPOTENCY_LEASE_SECONDS, so a
 *   slow request keeps its key however long it takes. A process that dies mid-request stops
 *   renewing: its key answers 409 until the lease ends, then the next retry runs anew. A
 *   request whose key was taken over meanwhile (a process stalled past its lease) cannot
 *   commit: its completion finds another claim, it rolls back and answers 409.
 */
export function registerIdempotency(
  app: FastifyInstance,
  options: { idempotency: IdempotencyService },
): void {
  const { idempotency } = options;

  /** Rolls the request back, then releases its key on the pool. */
  const undo = async (request: FastifyRequest, state: Pending) => {
    try {
      if (!state.transaction.ended) await state.transaction.rollback();
    } catch (err) {
      request.log.error({ err }, 'could not roll back a request with an Idempotency-Key');
    }
    try {
      await idempotency.abandon(state.pool, state.claim);
    } catch (err) {
      request.log.error({ err }, 'could not release Idempotency-Key');
    }
  };

  const begin = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'POST' || !request.routeOptions.url) return;
    const header = request.headers[IDEMPOTENCY_KEY_HEADER];
    // Keys belong to the merchant's secret keys. A client secret (read only) never claims or
    // replays one: it must not see, nor block, a response stored for the merchant's backend.
    const principal = request.principal;
    if (header === undefined || principal?.kind !== 'secret_key') return;
    const merchantId = principal.merchantId;
    if (typeof header !== 'string' || !VALID_KEY.test(header)) {
      throw new DomainError(
        ErrorCode.InvalidParameter,
        'Idempotency-Key must be 1-255 printable ASCII characters',
      );
    }
    const method = request.method;
    const path = request.url.split('?')[0];
    // Keys are per merchant, but a restricted key must never be handed a response stored for a
    // key with other scopes (a secret key's createApiKey holds the new key's secret): its scopes
    // are part of what must match, so the same key and body from it is a conflict, not a replay.
    const restricted = !principal.scopes.includes('all');
    const hashed = restricted
      ? { scopes: [...principal.scopes].sort(), body: request.body }
      : request.body;
    const scope: IdempotencyScope = {
      merchantId,
      key: header,
      method,
      path,
      requestHash: requestHash(method, path, hashed),
    };
    const pool = request.em;
    const outcome = await idempotency.begin(pool, scope);
    if (outcome.kind === 'replay') {
      reply.header(IDEMPOTENT_REPLAYED_HEADER, 'true').code(outcome.status);
      if (outcome.text !== null) {
        // The stored bytes as they were sent (a string with a JSON type is not serialised again).
        reply.header('content-type', 'application/json; charset=utf-8').send(outcome.text);
      } else if (outcome.body === null || outcome.body === undefined) reply.send();
      else reply.send(outcome.body); // stored before responses were sealed
      return reply;
    }
    const claim = outcome.claim;
    let transaction: RequestTransaction;
    try {
      transaction = await openRequestTransaction(pool);
    } catch (err) {
      await idempotency.abandon(pool, claim).catch(() => undefined);
      throw err;
    }
    request.em = transaction.em;
    const heartbeat = setInterval(() => {
      idempotency.renew(pool, claim).then(
        (held) => {
          if (!held) clearInterval(heartbeat);
        },
        (err: unknown) => request.log.warn({ err }, 'could not renew an Idempotency-Key lease'),
      );
    }, idempotency.heartbeatMs);
    heartbeat.unref();
    pending.set(request, { claim, settled: false, heartbeat, pool, transaction });
  };

  const store = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const state = pending.get(request);
    if (!state || state.settled) return payload;
    state.settled = true;
    clearInterval(state.heartbeat);
    const status = reply.statusCode;
    if (status >= 500) {
      await undo(request, state);
      return payload;
    }
    const { transaction, claim } = state;
    const parsed = payloadText(payload);
    try {
      if (parsed.ok) {
        if (!(await idempotency.complete(transaction.em, claim, status, parsed.text))) {
          await transaction.rollback();
          return failedAnswer(request, reply, new DomainError(ErrorCode.IdempotencyConflict, LOST));
        }
      } else {
        // Nothing to replay: the effect stands and the key is released with it.
        request.log.warn('response is not JSON; Idempotency-Key released');
        await idempotency.abandon(transaction.em, claim);
      }
      await transaction.commit();
      return payload;
    } catch (err) {
      // Not committed (or not known to be): the client must not read the answer as done.
      request.log.error({ err }, 'could not commit a request with an Idempotency-Key');
      await undo(request, state);
      return failedAnswer(request, reply, err);
    }
  };

  const release = async (request: FastifyRequest) => {
    const state = pending.get(request);
    if (!state) return;
    pending.delete(request);
    clearInterval(state.heartbeat);
    if (!state.settled) {
      state.settled = true;
      await undo(request, state);
    }
  };

  // Most POSTs (every GraphQL query) carry no key: they pass each hook without a promise. A
  // hook that returns one is waited for, as an async hook is; one that does not calls `done`.
  const beginHook = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (request.headers[IDEMPOTENCY_KEY_HEADER] === undefined) return done();
    return begin(request, reply);
  };
  const storeHook = (
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    done: (error: null, payload: unknown) => void,
  ) => {
    const state = pending.get(request);
    if (!state || state.settled) return done(null, payload);
    return store(request, reply, payload);
  };
  const releaseHook = (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    if (!pending.has(request)) return done();
    return release(request);
  };

  // Only routes that take POST get the hooks (first among each route's own, as root hooks ran
  // before them): a GET, most of the traffic, pays for none of them.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('POST')) return;
    const first = <T>(hook: T, existing: T | T[] | undefined): T[] =>
      existing === undefined
        ? [hook]
        : [hook, ...(Array.isArray(existing) ? existing : [existing])];
    route.preHandler = first(beginHook, route.preHandler as never);
    route.onSend = first(storeHook, route.onSend as never);
    route.onResponse = first(releaseHook, route.onResponse as never);
  });
}
