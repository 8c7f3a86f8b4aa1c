// Seeded property-based fuzzing of everything that arrives over HTTP: every REST route (from
// the OpenAPI document, plus the hidden ones), raw bytes before routing, and the bank's
// notifications. Replay a failure with the FUZZ_SEED (and FUZZ_PATH) fast-check prints.
import fc from 'fast-check';
import { graphql, request } from '../support/http';
import { randomAddress } from '../support/onramps';
import { bankRequest } from './support/bank-requests';
import { providerRequest } from './support/provider-requests';
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
import { checkHttpAnswer, PlantedValues, type SentRequest } from './support/oracle';
import { checkRawAnswer, parseFirstResponse, rawRequest, sendRaw } from './support/raw-http';
import { operationsOf, restRequest } from './support/rest-requests';
import { assertStillServing } from './support/after-run';
import {
  fromGraphql,
  gatedPart,
  GRAPHQL_SETTINGS_FIELDS,
  graphqlInput,
  settingsAnswerViolations,
  settingsPatch,
  settingsStepViolations,
} from './support/settings-requests';
import { SETTINGS_DELAY_SECONDS, secretsOf, startFuzzWorld, type FuzzWorld } from './support/world';
import { browserViolations } from './support/browser-rules';

jest.setTimeout(300_000);

const GRAPHQL_PATHS = new Set(['/graphql', '/admin/graphql']);

describe(`HTTP fuzz (seed ${FUZZ_SEED})`, () => {
  let world: FuzzWorld;
  let secretsOfB: string[];
  let secretsOfBoth: string[];
  const stats = new FuzzStats();

  beforeAll(async () => {
    world = await startFuzzWorld();
    secretsOfB = secretsOf(world.b);
    secretsOfBoth = [...secretsOfB, ...secretsOf(world.a)];
  });
  afterAll(async () => {
    closeAgent();
    console.log(stats.report('HTTP fuzz'));
    await world?.stack.stop();
  });

  /**
   * A's own credentials may see A's data (its restricted key too, within its scopes); nothing
   * else may see either merchant's (A's key used from an address it is not allowed from
   * included).
   */
  const secretsFor = (sent: SentRequest) =>
    sent.credential === 'A key' ||
    sent.credential === 'A client secret' ||
    sent.credential === 'A restricted key' ||
    sent.credential === 'A balance key' ||
    sent.credential === 'bank'
      ? secretsOfB
      : secretsOfBoth;

  const planted = new PlantedValues();

  async function exchange(sent: SentRequest): Promise<Outcome | undefined> {
    stats.count(sent.transport);
    // Before the first await: a whole batch is noted before any of its answers is checked.
    planted.note(sent, secretsOfBoth);
    try {
      const answer = await send(world.stack.url, sent);
      stats.saw(`${sent.transport} ${answer.status}`);
      const graphqlPath = GRAPHQL_PATHS.has(sent.path.split('?')[0]);
      const secrets = sent.credential === 'bank' ? [] : planted.without(secretsFor(sent));
      const violations = [
        ...checkHttpAnswer(sent, answer, secrets, graphqlPath),
        ...browserViolations(sent, answer, world.stack.url),
        ...settingsChecks(sent, answer),
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

  /** A settings answer (any PATCH the storm made before it) keeps the pending invariants. */
  function settingsChecks(sent: SentRequest, answer: { status: number; text: string }) {
    const route = sent.path.split(/[?#]/)[0].replace(/\/+/g, '/').replace(/\/$/, '');
    if (route.toLowerCase() !== '/v1/merchant/settings' || answer.status !== 200) return [];
    if (sent.method !== 'GET' && sent.method !== 'PATCH') return [];
    const body = JSON.parse(answer.text) as { pending_changes?: unknown[] };
    if ((body.pending_changes?.length ?? 0) > 0) stats.saw('settings with pending_changes');
    return settingsAnswerViolations(body);
  }

  it('every REST route, with hostile paths, queries, bodies, headers and credentials', async () => {
    const openapi = await request(world.stack.url, 'GET', '/v1/openapi.json');
    const operations = operationsOf(openapi.body);
    expect(operations.length).toBeGreaterThan(15);
    await fc.assert(
      fc.asyncProperty(batchOf(restRequest(operations, world)), async (batch) => {
        const outcomes = await Promise.all(batch.map(exchange));
        assertClean(
          outcomes.filter((o): o is Outcome => o !== undefined),
          stats,
        );
      }),
      runParameters(650),
    );
  });

  it('raw bytes before routing: malformed request lines, headers, framing', async () => {
    const port = Number(new URL(world.stack.url).port);
    await fc.assert(
      fc.asyncProperty(batchOf(rawRequest(world, port)), async (batch) => {
        const outcomes = await Promise.all(
          batch.map(async (sent) => {
            stats.count(sent.transport);
            const { data } = await sendRaw(port, sent.body as Buffer);
            const answer = parseFirstResponse(data);
            stats.saw(`raw ${answer?.status ?? 'no answer'}`);
            return {
              sent,
              answer,
              violations: checkRawAnswer(answer, GRAPHQL_PATHS.has(sent.path)),
            };
          }),
        );
        assertClean(outcomes, stats);
      }),
      runParameters(60),
    );
  });

  it('bank notifications: bad signatures, and good signatures over hostile bodies', async () => {
    await fc.assert(
      fc.asyncProperty(batchOf(bankRequest(world)), async (batch) => {
        const outcomes = await Promise.all(batch.map(exchange));
        assertClean(
          outcomes.filter((o): o is Outcome => o !== undefined),
          stats,
        );
      }),
      runParameters(100),
    );
  });

  it('Paystack and Monnify notifications: their signatures, hostile bodies, unknown providers', async () => {
    await fc.assert(
      fc.asyncProperty(batchOf(providerRequest(world, world.providerSecrets)), async (batch) => {
        const outcomes = await Promise.all(batch.map(exchange));
        assertClean(
          outcomes.filter((o): o is Outcome => o !== undefined),
          stats,
        );
      }),
      runParameters(60),
    );
  });

  it('merchant settings: widenings wait, tightenings apply at once (REST and GraphQL)', async () => {
    const { a } = world;
    const read = async () =>
      (
        await request(world.stack.url, 'GET', '/v1/merchant/settings', {
          key: a.apiKey,
        })
      ).body;
    await fc.assert(
      fc.asyncProperty(settingsPatch, fc.boolean(), async (patch, overGraphql) => {
        const before = await read();
        const sentAt = Date.now();
        let after;
        if (overGraphql) {
          const answer = await graphql(
            world.stack.url,
            a.apiKey,
            `mutation($input: UpdateMerchantSettingsInput!) {
              updateMerchantSettings(input: $input) { ${GRAPHQL_SETTINGS_FIELDS} }
            }`,
            { input: graphqlInput(patch) },
          );
          expect(answer.body.errors).toBeUndefined();
          after = fromGraphql(answer.body.data!.updateMerchantSettings as Record<string, unknown>);
        } else {
          const answer = await request(world.stack.url, 'PATCH', '/v1/merchant/settings', {
            key: a.apiKey,
            body: patch,
          });
          expect(answer.status).toBe(200);
          after = answer.body;
        }
        if (after.pending_changes.length > 0) stats.saw('settings with pending_changes');
        const violations = settingsStepViolations({
          before,
          patch,
          after,
          sentAt,
          answeredAt: Date.now(),
          delaySeconds: SETTINGS_DELAY_SECONDS,
        });
        expect(violations).toEqual([]);
        // What the answer says applies is what the next read and a withdrawal see.
        expect(gatedPart(await read())).toEqual(gatedPart(after));
        if (after.require_address_book) {
          const refused = await request(world.stack.url, 'POST', '/v1/merchant/withdraw', {
            key: a.apiKey,
            body: {
              amount: '1',
              asset: 'USDC',
              chain: 'BASE',
              destination_address: randomAddress(),
            },
          });
          expect([refused.status, refused.body.error?.code]).toEqual([422, 'address_not_allowed']);
        }
      }),
      runParameters(80),
    );
  });

  it('still serves, quickly, with no half-written records', async () => {
    await assertStillServing(world);
  });
});
