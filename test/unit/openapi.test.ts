import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode } from '../../src/domain/errors';
import { EVENT_ON_ENTRY } from '../../src/domain/deposit-state-machine';
import { openApiFileDrift } from '../../src/api/openapi/openapi-file';
import { MERCHANT_CONTROL_EVENTS, WITHDRAWAL_EVENT_ON_ENTRY } from '../../src/api/openapi/webhooks';

const ROOT = join(__dirname, '..', '..');
const FILE = join(ROOT, 'docs', 'openapi.json');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/**
 * The document as the built gateway code generates it (jest's global setup builds dist/; the
 * route schemas use typebox, an ES module jest's CommonJS runtime cannot load in-process).
 */
let generated: string;
let document: Json;
beforeAll(() => {
  const emit = join(ROOT, 'scripts', 'emit-openapi.js');
  generated = execFileSync(process.execPath, [emit, '--print'], { cwd: ROOT, encoding: 'utf8' });
  document = JSON.parse(generated);
});

const operations = (): Array<[string, Json]> =>
  Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Json>).map(([method, op]): [string, Json] => [
      `${method} ${path}`,
      op,
    ]),
  );

describe('docs/openapi.json', () => {
  it('is what the routes generate (run `npm run openapi` when this fails)', () => {
    expect(openApiFileDrift(generated, readFileSync(FILE, 'utf8'))).toBeNull();
  });

  it('is reported stale when edited by hand', () => {
    const edited = readFileSync(FILE, 'utf8').replace('"getRate"', '"fetchRate"');
    expect(openApiFileDrift(generated, edited)).toMatch(
      /docs\/openapi\.json is stale at line \d+.*getRate.*fetchRate/,
    );
  });
});

describe('the OpenAPI document', () => {
  it('names every shared schema (no def-N) and the error schema `Error`', () => {
    const names = Object.keys(document.components.schemas);
    expect(names).toEqual(expect.arrayContaining(['Error', 'Deposit', 'Onramp', 'Withdrawal']));
    expect(JSON.stringify(document)).not.toMatch(/def-\d/);
  });

  it("declares error.code as the service's code list", () => {
    const code = document.components.schemas.Error.properties.error.properties.code;
    expect(code.enum).toEqual(Object.values(ErrorCode));
  });

  it('gives every operation an operationId, a summary and examples', () => {
    for (const [name, op] of operations()) {
      expect([name, typeof op.operationId, typeof op.summary]).toEqual([name, 'string', 'string']);
      const body = op.requestBody?.content?.['application/json'];
      if (body) expect([name, body.example]).toEqual([name, expect.anything()]);
      for (const parameter of op.parameters ?? []) {
        if (parameter.$ref) continue;
        expect([name, parameter.name, parameter.example]).toEqual([
          name,
          parameter.name,
          expect.anything(),
        ]);
      }
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const media = response.content['application/json'] ?? response.content['text/csv'];
        expect([name, status, media.example ?? media.examples]).toEqual([
          name,
          status,
          expect.anything(),
        ]);
      }
    }
  });

  it('declares the headers: Idempotency-Key on POSTs with a key, rate limits, request ids', () => {
    const create = document.paths['/v1/onramp'].post;
    expect(create.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    expect(Object.keys(create.responses['201'].headers)).toEqual([
      'X-Request-Id',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Idempotent-Replayed',
    ]);
    expect(Object.keys(create.responses['429'].headers)).toContain('Retry-After');
    const health = document.paths['/health'].get;
    expect(Object.keys(health.responses['200'].headers)).toEqual(['X-Request-Id']);
  });

  it('asks for a key per route: none for /health and the bank, a client secret where allowed', () => {
    expect(document.paths['/health'].get.security).toEqual([]);
    expect(document.paths['/v1/bank/notifications'].post.security).toEqual([]);
    expect(document.paths['/v1/deposits'].get.security).toEqual([
      { secretKey: [] },
      { clientSecret: [] },
    ]);
    expect(document.paths['/v1/merchant/withdraw'].post.security).toEqual([{ secretKey: [] }]);
  });

  it('describes a webhook for every event, signed with the Standard Webhooks headers', () => {
    const events = [
      ...Object.values(EVENT_ON_ENTRY),
      ...Object.values(WITHDRAWAL_EVENT_ON_ENTRY),
      ...MERCHANT_CONTROL_EVENTS,
    ];
    expect(Object.keys(document.webhooks).sort()).toEqual(events.sort());
    const parameters = document.components.parameters;
    expect(
      ['WebhookId', 'WebhookTimestamp', 'WebhookSignature'].map((p) => parameters[p].name),
    ).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
  });

  it('lists the withdrawal events the database trigger writes, and no other', () => {
    const migrations = join(ROOT, 'src', 'db', 'migrations');
    const sql = readFileSync(join(migrations, 'Migration20261122000400_payouts.ts'), 'utf8');
    const written = [...sql.matchAll(/when '(\w+)' then '(withdrawal\.\w+)'/g)].map((m) => [
      m[1],
      m[2],
    ]);
    expect(Object.fromEntries(written)).toEqual(WITHDRAWAL_EVENT_ON_ENTRY);
  });
});
