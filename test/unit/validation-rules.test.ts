import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  getIntrospectionQuery,
  parse,
  specifiedRules,
  validate,
  type GraphQLSchema,
} from 'graphql';
import { buildGraphQLSchema } from '../../src/api/graphql/schema';
import { DocumentCache } from '../../src/api/graphql/document-cache';
import { queryLimitsRule } from '../../src/api/graphql/limits';
import {
  gatewayValidationRules,
  MAX_QUERY_TOKENS,
  operationLimitError,
} from '../../src/api/graphql/validation-rules';
import { aliasedDepositPages, fragmentBomb } from '../support/graphql-documents';

/** Every query, mutation and subscription text in dashboard/src, with `${CONSTANT}`s filled in. */
function dashboardDocuments(): Array<{ name: string; text: string }> {
  const dir = join(__dirname, '..', '..', 'dashboard', 'src');
  const sources = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(join(dir, f), 'utf8'));
  const constants = new Map<string, string>();
  for (const source of sources) {
    for (const m of source.matchAll(/const (\w+) =\s*(?:`([^`]*)`|'([^']*)')/g)) {
      constants.set(m[1], m[2] ?? m[3]);
    }
  }
  const fill = (text: string): string =>
    text.replace(/\$\{(\w+)\}/g, (_, name: string) => fill(constants.get(name) ?? ''));
  return [...constants]
    .filter(([, text]) => /^\s*(query|mutation|subscription)\b/.test(text))
    .map(([name, text]) => ({ name, text: fill(text) }));
}

describe('gateway validation rules (real schema)', () => {
  let schema: GraphQLSchema;
  beforeAll(async () => {
    schema = await buildGraphQLSchema();
  });

  const errorsOf = (query: string, production: boolean) =>
    validate(schema, parse(query), gatewayValidationRules({ production })).map((e) => ({
      message: e.message,
      code: e.extensions.code,
    }));

  it('answers the standard introspection query in the sandbox', () => {
    expect(errorsOf(getIntrospectionQuery(), false)).toEqual([]);
    // With every option graphql-js offers, as GraphiQL and code generators send it.
    const full = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    });
    expect(errorsOf(full, false)).toEqual([]);
  });

  it('refuses introspection in production with the API error code', () => {
    const errors = errorsOf(getIntrospectionQuery(), true);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toEqual({
      message: expect.stringMatching(/introspection/i),
      code: 'INVALID_PARAMETER',
    });
    expect(errorsOf('{ __type(name: "Deposit") { name } }', true)).toHaveLength(1);
    expect(errorsOf('{ rate(from: "NGN") { __typename } }', true)).toEqual([]);
  });

  it('still bounds introspection nesting (graphql-js MaxIntrospectionDepthRule)', () => {
    const nested =
      '{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }';
    expect(errorsOf(nested, false)).toHaveLength(1);
  });

  it('passes every document the dashboard sends, at its largest page', () => {
    const documents = dashboardDocuments();
    expect(documents.map((d) => d.name)).toEqual(
      expect.arrayContaining(['DEPOSITS_QUERY', 'DEPOSIT_QUERY', 'WEBHOOK_DELIVERIES_QUERY']),
    );
    for (const { name, text } of documents) {
      expect({ name, errors: errorsOf(text, true) }).toEqual({ name, errors: [] });
      const refusal = operationLimitError(schema, parse(text), undefined, { first: 100 });
      expect({ name, refusal }).toEqual({ name, refusal: null });
    }
  });

  it('refuses twenty aliased pages of 100 deposits with their histories by cost', () => {
    expect(errorsOf(aliasedDepositPages(), false)).toEqual([
      {
        message: expect.stringMatching(/cost exceeds the limit of 5000/),
        code: 'INVALID_PARAMETER',
      },
    ]);
    expect(errorsOf(aliasedDepositPages(1), false)).toEqual([]);
    // The same with `first` as a variable: known only per request, checked before execution.
    const withVariable = `query Pages($n: Int) ${aliasedDepositPages().replace(/first: 100/g, 'first: $n')}`;
    expect(errorsOf(withVariable, false)).toEqual([]);
    const refusal = operationLimitError(schema, parse(withVariable), 'Pages', { n: 100 });
    expect(refusal?.message).toMatch(/cost exceeds/);
    expect(operationLimitError(schema, parse(withVariable), 'Pages', { n: 10 })).toBeNull();
  });
});

/**
 * The fastest of five runs, in ms: a bound on the work, not on whichever run the loaded test
 * machine's scheduler or garbage collector interrupted.
 */
function fastestOf(run: () => unknown): number {
  let fastest = Infinity;
  for (let i = 0; i < 5; i += 1) {
    const started = performance.now();
    run();
    fastest = Math.min(fastest, performance.now() - started);
  }
  return fastest;
}

describe('DocumentCache parses with the token limit', () => {
  let schema: GraphQLSchema;
  beforeAll(async () => {
    schema = await buildGraphQLSchema();
  });

  it('refuses a document over the token limit before validating it', () => {
    const cache = new DocumentCache(schema, specifiedRules, { maxEntries: 10, maxQueryLength: 1 });
    const many = `{ ${Array.from({ length: MAX_QUERY_TOKENS }, () => '__typename').join(' ')} }`;
    const checked = cache.check(many);
    expect('errors' in checked && checked.errors[0].message).toMatch(/2000 tokens/);
    expect('document' in cache.check(getIntrospectionQuery())).toBe(true);
  });

  it('refuses the fragment bomb and one a hundred times its size, each in well under 50 ms', () => {
    const cache = new DocumentCache(schema, gatewayValidationRules({ production: false }), {
      maxEntries: 10,
      maxQueryLength: 4096,
    });
    const bomb = fragmentBomb({ fragments: 10, spreads: 30, leaf: 'merchant { id }' });
    const hundredfold = fragmentBomb({ fragments: 1000, spreads: 30, leaf: 'merchant { id }' });
    expect(hundredfold.length).toBeGreaterThan(bomb.length * 100);
    for (const [document, reason] of [
      [bomb, /cost exceeds/],
      [hundredfold, /tokens/],
    ] as const) {
      const checked = cache.check(document);
      expect(fastestOf(() => cache.check(document))).toBeLessThan(50);
      expect('errors' in checked && checked.errors.map((e) => e.message)).toEqual([
        expect.stringMatching(reason),
      ]);
    }
    // The limits themselves, without the token limit: one measurement per fragment. (graphql-js's
    // own traversal of 30,000 spreads is what the token limit spares the gateway.)
    const document = parse(hundredfold, { maxTokens: 1_000_000 });
    const measure = () => operationLimitError(schema, document, 'Bomb', {});
    expect(fastestOf(measure)).toBeLessThan(50);
    expect(measure()?.message).toMatch(/cost exceeds/);
    expect(validate(schema, document, [queryLimitsRule()]).map((e) => e.message)).toEqual([
      expect.stringMatching(/cost exceeds/),
    ]);
  });
});
