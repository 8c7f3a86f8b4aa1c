import net from 'node:net';
import fc from 'fast-check';
import type { Answer, SentRequest, Violation } from './oracle';
import { graphqlShapeViolation, restErrorShapeViolation } from './oracle';
import type { FuzzWorld } from './world';

/** How long a socket may stay silent: a server waiting for the rest of a request is fine. */
const QUIET_MS = 1_000;

/** Bytes on a socket that HTTP/1.1 does not allow, or only just: before any route runs. */
export function rawRequest(world: FuzzWorld, port: number): fc.Arbitrary<SentRequest> {
  const method = fc.constantFrom(
    'GET',
    'POST',
    'get',
    'G\u0000T',
    '',
    'GET GET',
    'PRI',
    'CONNECT',
    'X'.repeat(100),
    'DELETE',
  );
  const target = fc.constantFrom(
    '/health',
    '/v1/rates?from=NGN&to=USDC',
    `/v1/deposits/${world.b.depositIds[0]}`,
    '/v1/deposits/%',
    '/v1/onramp/%E0%A4%A',
    '*',
    'http://evil.example/v1/rates',
    '',
    '/\u0000',
    '/v1/onramps\t',
    '/\u00ff\u00fe',
    '/graphql',
    `/${'a'.repeat(20_000)}`,
  );
  const version = fc.constantFrom(
    'HTTP/1.1',
    'HTTP/1.0',
    'HTTP/2.0',
    'HTTP/9.9',
    'HTTP/1.1x',
    '',
    'http/1.1',
  );
  const header = fc.constantFrom(
    `Host: 127.0.0.1:${port}`,
    'Host: a\r\nHost: b',
    `Authorization: Bearer ${world.a.apiKey}`,
    'Authorization: Bearer \u0000',
    'Content-Type: application/json',
    'Content-Length: -1',
    'Content-Length: 5',
    'Content-Length: 1, 2',
    'Content-Length: 99999999999999999999',
    'Transfer-Encoding: chunked',
    'Transfer-Encoding: gzip, chunked',
    'NoColonHeader',
    'Host : spaced',
    'X-Folded: a\r\n continued',
    `X-Huge: ${'h'.repeat(20_000)}`,
    'X-Nul: a\u0000b',
    'Expect: 100-continue',
    'Upgrade: websocket',
    'Connection: upgrade, close',
    'Connection: close',
    'X-Request-Id: ../../\u00e9',
  );
  const body = fc.constantFrom(
    '',
    '{"a":1}',
    '0\r\n\r\n',
    'zz\r\nhello\r\n0\r\n\r\n',
    '{"a":',
    '\u0000\u0001\u00ff',
  );
  return fc
    .record({
      method,
      target,
      version,
      headers: fc.array(header, { maxLength: 5 }),
      many: fc.nat(20),
      eol: fc.constantFrom('\r\n', '\r\n', '\n', '\r'),
      body,
    })
    .map((r) => {
      const headers =
        r.many === 0
          ? [...r.headers, ...Array.from({ length: 300 }, (_, i) => `X-${i}: ${i}`)]
          : r.headers;
      const head = [`${r.method} ${r.target} ${r.version}`.trim(), ...headers].join(r.eol);
      return {
        transport: 'raw-http',
        method: r.method,
        path: r.target,
        headers: {},
        body: Buffer.from(`${head}${r.eol}${r.eol}${r.body}`, 'latin1'),
        credential: headers.some((h) => h.startsWith('Authorization: Bearer sk_'))
          ? 'A key'
          : 'none',
      };
    });
}

/** Writes the bytes, reads until the server closes or goes quiet. */
export function sendRaw(port: number, bytes: Buffer): Promise<{ data: Buffer; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout;
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ data: Buffer.concat(chunks), closed });
    };
    const quiet = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(false), QUIET_MS);
    };
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      // One whole answer is all the oracle reads: do not wait for keep-alive to time out.
      if (isComplete(Buffer.concat(chunks))) finish(false);
      else quiet();
    });
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
    socket.write(bytes);
    quiet();
  });
}

function isComplete(data: Buffer): boolean {
  const text = data.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, end));
  if (length) return text.length - end - 4 >= Number(length[1]);
  if (/\r\ntransfer-encoding:/i.test(text.slice(0, end))) return text.endsWith('0\r\n\r\n');
  return true;
}

/** The first response on the socket, if any: status, headers and its body. */
export function parseFirstResponse(data: Buffer): Answer | undefined {
  const text = data.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  if (!text.startsWith('HTTP/') || end < 0) return undefined;
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(end + 4);
  if (headers['content-length']) body = body.slice(0, Number(headers['content-length']));
  else if (headers['transfer-encoding']) body = dechunk(body);
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    text: Buffer.from(body, 'latin1').toString('utf8'),
    ms: 0,
  };
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (lineEnd < 0 || !size) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 4 + size);
  }
}

/**
 * Before routing, the rules are: never a 5xx; an answer with a body is in the error shape and
 * carries X-Request-Id. Node's parser refusing the bytes outright (a bare 400/431 with no body,
 * then closing) is accepted: no request exists yet to shape an answer for, and the client
 * learns what it needs from the status.
 */
export function checkRawAnswer(answer: Answer | undefined, graphqlPath: boolean): Violation[] {
  if (!answer) return [];
  const violations: Violation[] = [];
  if (!(answer.status >= 100 && answer.status < 500)) {
    violations.push({ rule: '5xx', detail: `${answer.status} ${answer.text.slice(0, 200)}` });
  }
  if (answer.status >= 400 && answer.text.length > 0) {
    // A request line the parser refused ("GET GET /graphql") has no path the server can trust:
    // either shape is right there, the GraphQL one only when it could read /graphql.
    const rest = restErrorShapeViolation(answer.status, answer.text);
    const shape = graphqlPath ? rest && graphqlShapeViolation(answer.text) : rest;
    if (shape) violations.push({ rule: 'error-shape', detail: `${answer.status}: ${shape}` });
    if (!answer.headers['x-request-id'])
      violations.push({ rule: 'x-request-id', detail: `missing on ${answer.status}` });
  }
  return violations;
}
