// Seeded property-based fuzzing of GraphQL: documents of any shape over HTTP (random selections
// over the served schema, wrong arguments, aliases, fragments, garbage, huge and deep ones,
// bombs), and graphql-ws sockets with any frames in any order. Replay with FUZZ_SEED/FUZZ_PATH.
import fc from 'fast-check';
import { assertStillServing } from './support/after-run';
import { browserViolations } from './support/browser-rules';
import {
  assertClean,
  batchOf,
  closeAgent,
  FUZZ_SEED,
  FuzzStats,
  runParameters,
  send,
  type Outcome,
} from './support/driver';
import { servedSchema } from './support/graphql-documents';
import { graphqlRequest } from './support/graphql-requests';
import { checkHttpAnswer, PlantedValues, type SentRequest } from './support/oracle';
import { RESTRICTED_SCOPES, scopeViolations } from './support/scope-oracle';
import { checkSession, describeSession, runSession, wsSession } from './support/ws-sessions';
import { secretsOf, startFuzzWorld, type FuzzWorld } from './support/world';

jest.setTimeout(300_000);

/** The first error's message, without what varies: what kinds of refusal the run met. */
function reasonOf(text: string): string {
  const message = /"message":"([^"]{0,60})/.exec(text)?.[1] ?? '';
  return message.replace(/\d+/g, 'N').replace(/\\?"[^"]*\\?"/g, '""');
}

describe(`GraphQL fuzz (seed ${FUZZ_SEED})`, () => {
  let world: FuzzWorld;
  let secretsOfB: string[];
  let secretsOfBoth: string[];
  const stats = new FuzzStats();
  const schema = servedSchema();

  beforeAll(async () => {
    world = await startFuzzWorld();
    secretsOfB = secretsOf(world.b);
    secretsOfBoth = [...secretsOfB, ...secretsOf(world.a)];
  });
  afterAll(async () => {
    closeAgent();
    console.log(stats.report('GraphQL fuzz'));
    await world?.stack.stop();
  });

  const secretsFor = (credential: string) =>
    credential === 'A key' || credential === 'A client secret' || credential in RESTRICTED_SCOPES
      ? secretsOfB
      : secretsOfBoth;

  /** A restricted key's answer shows nothing out of its scopes, at any depth. */
  function outOfScope(sent: SentRequest, text: string) {
    const scopes = RESTRICTED_SCOPES[sent.credential];
    if (!scopes) return [];
    let data: unknown;
    try {
      data = (JSON.parse(text) as { data?: unknown }).data;
    } catch {
      return [];
    }
    return scopeViolations(schema, sent.document, sent.operationName, data, scopes);
  }

  const planted = new PlantedValues();

  async function exchange(sent: SentRequest): Promise<Outcome | undefined> {
    stats.count(sent.transport);
    // Only a mutation can store what it carries; noted before any answer of the batch.
    if (/mutation/i.test(sent.body?.toString('utf8') ?? '')) planted.note(sent, secretsOfBoth);
    try {
      const answer = await send(world.stack.url, sent);
      stats.saw(`${sent.transport} ${answer.status} ${reasonOf(answer.text)}`);
      const secrets = planted.without(secretsFor(sent.credential));
      const violations = [
        ...checkHttpAnswer(sent, answer, secrets, true),
        ...outOfScope(sent, answer.text),
        ...browserViolations(sent, answer, world.stack.url),
      ];
      return { sent, answer, violations };
    } catch (error) {
      if ((error as { clientSide?: boolean }).clientSide) {
        stats.clientRefused += 1;
        return undefined;
      }
      return { sent, violations: [{ rule: 'no-answer', detail: String(error) }] };
    }
  }

  it('POST and GET /graphql: documents of any shape, any credential', async () => {
    await fc.assert(
      fc.asyncProperty(batchOf(graphqlRequest(schema, world)), async (batch) => {
        const outcomes = await Promise.all(batch.map(exchange));
        assertClean(
          outcomes.filter((o): o is Outcome => o !== undefined),
          stats,
        );
      }),
      runParameters(330),
    );
  });

  it('graphql-ws: any subprotocol, credential and frames, in any order', async () => {
    await fc.assert(
      fc.asyncProperty(batchOf(wsSession(schema, world), 12), async (batch) => {
        const outcomes = await Promise.all(
          batch.map(async (session) => {
            stats.count('ws', session.frames.length);
            const observed = await runSession(world.stack.url, session);
            stats.saw(
              `ws ${observed.close?.code ?? 'open'} ${observed.messages.length > 0 ? 'answered' : 'silent'}`,
            );
            const violations = checkSession(
              session,
              observed,
              secretsFor(session.credential.label),
              schema,
            );
            return { sent: describeSession(session), violations };
          }),
        );
        assertClean(outcomes, stats);
      }),
      runParameters(80),
    );
  });

  it('still serves, quickly, with no half-written records', async () => {
    await assertStillServing(world);
  });
});
