import http from 'node:http';
import fc from 'fast-check';
import type { Answer, SentRequest, Violation } from './oracle';
import { knownFailureOf } from '../known-failures';

/** Replay: `FUZZ_SEED=<seed> FUZZ_PATH=<path> npx jest --selectProjects fuzz test/fuzz/<file>`. */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20261124);
/** Scales every transport's number of runs (1 = the CI budget of at least 10,000 requests). */
export const FUZZ_SCALE = Number(process.env.FUZZ_SCALE ?? 1);
const FUZZ_PATH = process.env.FUZZ_PATH;
/** Exploration: run everything and print each kind of violation once, instead of failing. */
const SURVEY = process.env.FUZZ_SURVEY === 'true';

/** A request that takes this long is a violation too: no input may stall the gateway. */
export const SLOW_MS = 10_000;

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

export function closeAgent(): void {
  agent.destroy();
}

/** Sends one request exactly as built (raw path, raw headers, raw body) over keep-alive. */
export async function send(baseUrl: string, sent: SentRequest): Promise<Answer> {
  try {
    return await sendOnce(baseUrl, sent, agent);
  } catch (error) {
    // Node's documented keep-alive race: the server closed an idle socket just as the agent
    // reused it. Once more on a fresh connection, so the answer belongs to this request.
    const { reusedSocket, code } = error as { reusedSocket?: boolean; code?: string };
    if (!reusedSocket || !['ECONNRESET', 'EPIPE'].includes(code ?? '')) throw error;
    return sendOnce(baseUrl, sent, false);
  }
}

function sendOnce(baseUrl: string, sent: SentRequest, via: http.Agent | false): Promise<Answer> {
  const url = new URL(baseUrl);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    let req: http.ClientRequest;
    try {
      req = http.request({
        agent: via,
        host: url.hostname,
        port: url.port,
        method: sent.method,
        path: sent.path,
        // Always framed: Node sends a DELETE or OPTIONS body with neither Content-Length nor
        // chunking, and the server would read those bytes as the next request.
        headers:
          sent.body === undefined
            ? sent.headers
            : { ...sent.headers, 'content-length': String(Buffer.byteLength(sent.body)) },
        timeout: SLOW_MS,
      });
    } catch (error) {
      // The client itself refused to send it (a character Node will not put on the wire).
      return reject(Object.assign(error as Error, { clientSide: true }));
    }
    req.on('timeout', () => req.destroy(new Error(`no answer within ${SLOW_MS} ms`)));
    req.on('error', (error) => reject(Object.assign(error, { reusedSocket: req.reusedSocket })));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString('utf8'),
          ms: Date.now() - started,
        }),
      );
    });
    req.end(sent.body);
  });
}

/** Counts per transport, printed at the end of each suite. */
export class FuzzStats {
  readonly sent = new Map<string, number>();
  readonly known = new Map<string, number>();
  /** What the transports answered (statuses, close codes), to show what the run exercised. */
  readonly answers = new Map<string, number>();

  saw(what: string): void {
    this.answers.set(what, (this.answers.get(what) ?? 0) + 1);
  }
  clientRefused = 0;
  /** FUZZ_SURVEY=true: violations collected (first example of each kind), never thrown. */
  readonly survey = new Map<string, { count: number; example: string }>();
  private readonly started = Date.now();

  count(transport: string, n = 1): void {
    this.sent.set(transport, (this.sent.get(transport) ?? 0) + n);
  }

  total(): number {
    return [...this.sent.values()].reduce((a, b) => a + b, 0);
  }

  report(title: string): string {
    const seconds = ((Date.now() - this.started) / 1000).toFixed(1);
    const per = [...this.sent].map(([t, n]) => `${t}=${n}`).join(' ');
    const known = [...this.known].map(([id, n]) => `${id}=${n}`).join(' ') || 'none';
    const survey = [...this.survey].map(
      ([kind, { count, example }]) => `\n  ${count}x ${kind}\n    e.g. ${example}`,
    );
    const answers = [...this.answers]
      .sort((x, y) => y[1] - x[1])
      .map(([what, n]) => `${what}=${n}`)
      .join(' ');
    return `${title}: ${this.total()} requests in ${seconds} s (${per}); seed ${FUZZ_SEED}; client-refused ${this.clientRefused}; known failures hit: ${known}; answers: ${answers}${survey.join('')}`;
  }
}

export interface Outcome {
  sent: SentRequest;
  answer?: Answer;
  violations: Violation[];
}

/**
 * Drops the violations that match a known-failure entry (counted, so the report shows them),
 * and turns the rest into one readable error for fast-check to shrink and print.
 */
export function assertClean(outcomes: Outcome[], stats: FuzzStats): void {
  const open: string[] = [];
  for (const { sent, answer, violations } of outcomes) {
    for (const violation of violations) {
      const known = knownFailureOf(sent, answer, violation);
      if (known) {
        stats.known.set(known.id, (stats.known.get(known.id) ?? 0) + 1);
        continue;
      }
      const entry =
        `[${violation.rule}] ${violation.detail}\n    ${sent.transport} ${sent.method} ${JSON.stringify(sent.path).slice(0, 300)} as ${sent.credential}` +
        `\n    headers ${JSON.stringify(sent.headers).slice(0, 300)}` +
        `\n    body ${JSON.stringify(sent.body?.toString('latin1') ?? null).slice(0, 300)}`;
      if (SURVEY) survey(stats, kindOf(sent, violation), entry);
      else open.push(entry);
    }
  }
  if (open.length > 0) throw new Error(`${open.length} violation(s):\n  ${open.join('\n  ')}`);
}

/** A violation's kind, for the survey: its rule, status and code, and the route it hit. */
function kindOf(sent: SentRequest, violation: Violation): string {
  const detail = violation.detail
    .replace(/'[^']*'/g, "'…'")
    .replace(/"message":"[^"]*"/g, '')
    .slice(0, 90);
  const route = sent.path.split('?')[0].split('/').slice(0, 3).join('/').slice(0, 30);
  return `[${violation.rule}] ${detail} | ${sent.transport} ${sent.method} ${route}`;
}

function survey(stats: FuzzStats, kind: string, entry: string): void {
  const seen = stats.survey.get(kind) ?? { count: 0, example: entry };
  stats.survey.set(kind, { ...seen, count: seen.count + 1 });
}

/** fast-check's run parameters: seeded, replayable, and printed on failure. */
export function runParameters(numRuns: number): fc.Parameters<unknown> {
  return {
    seed: FUZZ_SEED,
    numRuns: Math.max(1, Math.round(numRuns * FUZZ_SCALE)),
    ...(FUZZ_PATH ? { path: FUZZ_PATH } : {}),
    endOnFailure: process.env.FUZZ_SHRINK === 'false',
    verbose: 1,
  };
}

/** Up to `max` requests at once: the unit fast-check generates, runs and shrinks. */
export function batchOf<T>(arbitrary: fc.Arbitrary<T>, max = 16): fc.Arbitrary<T[]> {
  return fc.array(arbitrary, { minLength: 1, maxLength: max, size: 'max' });
}
