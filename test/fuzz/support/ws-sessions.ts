import fc from 'fast-check';
import type { GraphQLSchema } from 'graphql';
import WebSocket from 'ws';
import { graphqlDocument } from './graphql-documents';
import { hostileJson } from './hostile';
import { graphqlShapeViolation, leakedSecrets, type SentRequest, type Violation } from './oracle';
import { RESTRICTED_SCOPES, scopeViolations } from './scope-oracle';
import type { FuzzWorld } from './world';

/** How long a socket is watched after its last frame: answers and closes arrive within it. */
const SETTLE_MS = 400;

/**
 * Close codes a healthy server may use: normal, the ws library's protocol/size refusals, and
 * graphql-ws's 44xx client errors. 1011 or 4500 (internal errors) and 1006 (cut without a
 * close frame, e.g. a crash) are not among them.
 */
const ALLOWED_CLOSES = new Set([
  1000, 1001, 1002, 1003, 1005, 1007, 1008, 1009, 4400, 4401, 4403, 4406, 4408, 4409, 4429,
]);

export interface WsSession {
  protocol: string | undefined;
  credential: { label: string; params: unknown };
  frames: Array<string | Buffer>;
  /** connection_init went first: the other frames wait for its answer (ack or close). */
  initFirst: boolean;
  /** Operations each `subscribe` frame carried, by id: queries and mutations must not run. */
  operations: Record<string, string>;
  /** The upgrade's Origin: a page of another site (never the gateway's own), or none. */
  origin?: string;
}

/** A socket's life: any subprotocol, any connection_init, then any frames in any order. */
export function wsSession(schema: GraphQLSchema, world: FuzzWorld): fc.Arbitrary<WsSession> {
  const { a } = world;
  const aKey = { label: 'A key', params: { authorization: `Bearer ${a.apiKey}` } };
  // Half the sockets authenticate, so that what follows the ack is reached too.
  const credential = fc.oneof(
    { weight: 5, arbitrary: fc.constant(aKey) },
    fc.constantFrom(
      { label: 'A client secret', params: { authorization: `Bearer ${a.clientSecret}` } },
      { label: 'A restricted key', params: { authorization: `Bearer ${world.restrictedKey}` } },
      { label: 'A balance key', params: { authorization: `Bearer ${world.balanceKey}` } },
      { label: 'revoked', params: { authorization: `Bearer ${world.revokedKey}` } },
      { label: 'other env', params: { authorization: `Bearer ${world.otherEnvironmentKey}` } },
      { label: 'none', params: {} },
      { label: 'malformed', params: { authorization: 12 } },
      { label: 'malformed', params: { authorization: [`Bearer ${a.apiKey}`] } },
      { label: 'malformed', params: 'Bearer x' },
      { label: 'malformed', params: { csrfToken: 'x' } },
    ),
  );

  const id = fc.constantFrom('1', '2', '1', '', 'x'.repeat(300));
  const subscribe = fc
    .tuple(
      id,
      graphqlDocument(schema, world),
      fc.oneof(
        { weight: 6, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: hostileJson(world) },
      ),
    )
    .map(([i, query, vars]) => ({
      id: i,
      query,
      text: JSON.stringify({
        id: i,
        type: 'subscribe',
        payload: { query, variables: vars ?? undefined },
      }),
    }));
  const other = fc.oneof(
    fc.constantFrom(
      '{"type":"ping"}',
      '{"type":"pong"}',
      '{"type":"complete","id":"1"}',
      '{"type":"connection_init"}',
      '{"type":"nope"}',
      '{"id":"1","type":"subscribe"}',
      '{"id":1,"type":"subscribe","payload":{"query":1}}',
      '{',
      'null',
      '[]',
      '',
    ),
    hostileJson(world).map(
      (v) => JSON.stringify({ type: 'subscribe', id: '9', payload: v }) ?? 'x',
    ),
    fc.uint8Array({ maxLength: 100 }).map((bytes) => Buffer.from(bytes)),
    fc
      .integer({ min: 60_000, max: 100_000 })
      .map((n) => JSON.stringify({ type: 'ping', payload: 'p'.repeat(n) })),
  );
  const frame = fc.oneof(
    { weight: 5, arbitrary: subscribe.map((s) => ({ ...s, kind: 'subscribe' as const })) },
    { weight: 1, arbitrary: other.map((text) => ({ text, kind: 'other' as const })) },
  );
  return fc
    .record({
      protocol: fc.oneof(
        { weight: 8, arbitrary: fc.constant<string | undefined>('graphql-transport-ws') },
        {
          weight: 1,
          arbitrary: fc.constantFrom<string | undefined>('graphql-ws', undefined, 'bogus'),
        },
      ),
      credential,
      init: fc.constantFrom('first', 'first', 'first', 'never', 'late'),
      frames: fc.array(frame, { minLength: 1, maxLength: 4 }),
      origin: fc.oneof(
        { weight: 4, arbitrary: fc.constant<string | undefined>(undefined) },
        {
          weight: 1,
          arbitrary: fc.constantFrom<string | undefined>(
            ...a.allowedOrigins,
            'https://evil.fuzz.example',
            'null',
          ),
        },
      ),
    })
    .map(({ protocol, credential: cred, init, frames, origin }) => {
      const initFrame = JSON.stringify({ type: 'connection_init', payload: cred.params });
      const texts: Array<string | Buffer> = frames.map((f) => f.text);
      if (init === 'first') texts.unshift(initFrame);
      if (init === 'late') texts.splice(1, 0, initFrame);
      const operations: Record<string, string> = {};
      for (const f of frames) if (f.kind === 'subscribe') operations[f.id] = f.query;
      const initFirst = init === 'first';
      return { protocol, credential: cred, frames: texts, operations, initFirst, origin };
    });
}

interface Observed {
  messages: string[];
  close?: { code: number; reason: string };
  upgradeStatus?: number;
}

/** Opens the socket, sends the frames, and watches until it closes or goes quiet. */
export function runSession(baseUrl: string, session: WsSession): Promise<Observed> {
  const observed: Observed = { messages: [] };
  return new Promise((resolve) => {
    // The subprotocol goes as a plain header: the ws client would otherwise abort by itself
    // (1006) when the server picks none, and the server's own answer would go unseen.
    // graphql-transport-ws, which the server accepts, goes through the client's own checks.
    const standard = session.protocol === 'graphql-transport-ws';
    const socket = new WebSocket(
      `${baseUrl.replace(/^http/, 'ws')}/graphql`,
      standard ? session.protocol : undefined,
      {
        maxPayload: 10 * 1024 * 1024,
        headers: {
          ...(session.protocol && !standard ? { 'sec-websocket-protocol': session.protocol } : {}),
          ...(session.origin !== undefined ? { origin: session.origin } : {}),
        },
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(timer);
      socket.terminate();
      resolve(observed);
    };
    const quiet = () => {
      clearTimeout(timer);
      timer = setTimeout(done, SETTLE_MS);
    };
    socket.on('unexpected-response', (_req, res) => {
      observed.upgradeStatus = res.statusCode;
      done();
    });
    socket.on('error', () => quiet());
    let rest = session.frames;
    const sendAll = (frames: Array<string | Buffer>) => {
      for (const frame of frames) if (socket.readyState === WebSocket.OPEN) socket.send(frame);
      quiet();
    };
    socket.on('message', (data) => {
      observed.messages.push(data.toString());
      if (session.initFirst && rest.length > 0 && observed.messages.length === 1) {
        sendAll(rest);
        rest = [];
      }
      quiet();
    });
    socket.on('close', (code, reason) => {
      observed.close = { code, reason: reason.toString() };
      done();
    });
    socket.on('open', () => {
      if (!session.initFirst) return sendAll(session.frames);
      // The init alone first: a subscribe before the ack is refused (4401) by design.
      sendAll(session.frames.slice(0, 1));
      rest = session.frames.slice(1);
    });
  });
}

const VALID = new Set(['A key', 'A client secret', ...Object.keys(RESTRICTED_SCOPES)]);

/** What a session's answers must satisfy. */
export function checkSession(
  session: WsSession,
  observed: Observed,
  secrets: string[],
  schema?: GraphQLSchema,
): Violation[] {
  const violations: Violation[] = [];
  if (observed.upgradeStatus !== undefined && observed.upgradeStatus >= 500) {
    violations.push({ rule: '5xx', detail: `upgrade answered ${observed.upgradeStatus}` });
  }
  if (observed.close && !ALLOWED_CLOSES.has(observed.close.code)) {
    violations.push({
      rule: 'ws-close',
      detail: `closed ${observed.close.code} ${observed.close.reason}`,
    });
  }
  for (const text of observed.messages) {
    let message: { type?: string; id?: string; payload?: unknown };
    try {
      message = JSON.parse(text);
    } catch {
      violations.push({ rule: 'ws-frame', detail: `not JSON: ${text.slice(0, 100)}` });
      continue;
    }
    if (message.type === 'connection_ack' && !VALID.has(session.credential.label)) {
      violations.push({
        rule: 'ws-auth',
        detail: `connection_ack for ${session.credential.label}`,
      });
    }
    // Another site's page: a key never connects, nor a client secret from a page whose origin
    // no list can hold (`null`). Which origins A allows, the fuzzed mutations may change.
    if (
      message.type === 'connection_ack' &&
      session.origin !== undefined &&
      (session.credential.label === 'A key' || session.origin === 'null')
    ) {
      violations.push({
        rule: 'ws-origin',
        detail: `connection_ack for ${session.credential.label} from ${session.origin}`,
      });
    }
    if (message.type === 'error') {
      const shape = graphqlShapeViolation(JSON.stringify({ errors: message.payload }));
      if (shape) violations.push({ rule: 'error-shape', detail: shape });
    }
    if (message.type === 'next') {
      const shape = graphqlShapeViolation(JSON.stringify(message.payload));
      if (shape) violations.push({ rule: 'error-shape', detail: shape });
      const operation = session.operations[message.id ?? ''] ?? '';
      const scopes = RESTRICTED_SCOPES[session.credential.label];
      // Only subscriptions run here (and ids repeat: only their documents are comparable).
      if (scopes && schema && /^\s*subscription\b/.test(operation)) {
        const data = (message.payload as { data?: unknown } | null)?.data;
        violations.push(...scopeViolations(schema, operation, undefined, data, scopes));
      }
      if (/^\s*(query|mutation)\b/.test(operation) && isObjectWithData(message.payload)) {
        violations.push({
          rule: 'ws-not-subscription',
          detail: `executed: ${operation.slice(0, 120)}`,
        });
      }
    }
  }
  const sent: SentRequest = {
    transport: 'ws',
    method: 'WS',
    path: '/graphql',
    headers: session.origin !== undefined ? { origin: session.origin } : {},
    body: session.frames.map(String).join('\n'),
    credential: session.credential.label,
  };
  const leaked = leakedSecrets(secrets, sent, observed.messages.join('\n'));
  if (leaked.length > 0)
    violations.push({ rule: 'other-merchant-data', detail: leaked.join(', ') });
  return violations;
}

function isObjectWithData(payload: unknown): boolean {
  const data = (payload as { data?: unknown } | null)?.data;
  return typeof data === 'object' && data !== null;
}

/** The session as a SentRequest, for failure messages. */
export function describeSession(session: WsSession): SentRequest {
  return {
    transport: 'ws',
    method: `WS ${session.protocol ?? '(no subprotocol)'}`,
    path: '/graphql',
    headers: session.origin !== undefined ? { origin: session.origin } : {},
    body: session.frames
      .map((f) => (typeof f === 'string' ? f.slice(0, 100_000) : `<binary ${f.length}>`))
      .join(' | '),
    credential: session.credential.label,
  };
}
