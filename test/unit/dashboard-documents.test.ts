import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import * as documents from '../../dashboard/src/documents';
import {
  GRAPHQL_PARSE_OPTIONS,
  gatewayValidationRules,
  operationLimitError,
} from '../../src/api/graphql/validation-rules';

/**
 * The dashboard's GraphQL documents (dashboard/src/documents.ts) against the schema the gateway
 * serves (schema.graphql, itself checked against the resolvers by schema-file.test.ts): a
 * misspelt field, a wrong argument or variable type, or a document the gateway would refuse
 * fails here rather than in a merchant's browser.
 */
const ROOT = join(__dirname, '..', '..');
const DASHBOARD_SRC = join(ROOT, 'dashboard', 'src');
const OPERATION = /^\s*(query|mutation|subscription)\b/;
/** A string literal opening an operation: `query Name(`, "mutation {", 'subscription X {'. */
const INLINE_OPERATION = /[`'"]\s*(query|mutation|subscription)\s*\w*\s*[({]/;
/** The largest page the API serves; the dashboard asks for 50 at most. */
const MAX_PAGE = 100;

const schema: GraphQLSchema = buildSchema(readFileSync(join(ROOT, 'schema.graphql'), 'utf8'));
const operations = Object.entries(documents as Record<string, unknown>).filter(
  (entry): entry is [string, string] => typeof entry[1] === 'string' && OPERATION.test(entry[1]),
);

function errorsOf(source: string): string[] {
  let document: DocumentNode;
  try {
    document = parse(source, GRAPHQL_PARSE_OPTIONS);
  } catch (error) {
    return [String(error)];
  }
  return validate(schema, document, gatewayValidationRules({ production: true })).map(
    (error) => error.message,
  );
}

describe('dashboard GraphQL documents', () => {
  it('holds every operation the dashboard sends', () => {
    expect(operations.length).toBeGreaterThanOrEqual(15);
    const names = operations.map(([, source]) => /^\s*\w+\s+(\w+)/.exec(source)?.[1]);
    expect(names.every((name) => name?.startsWith('Dashboard'))).toBe(true);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(operations)('%s parses and validates against schema.graphql', (_name, source) => {
    expect(errorsOf(source)).toEqual([]);
  });

  it.each(operations)('%s stays within the cost limit at the largest page', (_name, source) => {
    const document = parse(source, GRAPHQL_PARSE_OPTIONS);
    const variables = { first: MAX_PAGE, days: 366 };
    expect(operationLimitError(schema, document, undefined, variables)?.message).toBeUndefined();
  });

  it('fails on a misspelt field, a wrong argument and an unknown type', () => {
    const misspelt = documents.DEPOSITS_QUERY.replace('bankReference', 'bankRefrence');
    expect(errorsOf(misspelt)).toEqual([
      expect.stringMatching(/Cannot query field "bankRefrence" on type "Deposit"/),
    ]);
    const wrongArgument = documents.DEPOSITS_QUERY.replace('first: $first', 'frist: $first');
    expect(errorsOf(wrongArgument).join('\n')).toMatch(/Unknown argument "frist"/);
    const wrongType = documents.DEPOSIT_QUERY.replace('$id: ID!', '$id: DepositId!');
    expect(errorsOf(wrongType).join('\n')).toMatch(/Unknown type "DepositId"/);
  });

  it('is the only place in the dashboard that writes a GraphQL operation', () => {
    const inline = readdirSync(DASHBOARD_SRC)
      .filter((file) => file.endsWith('.ts') && file !== 'documents.ts')
      .filter((file) => INLINE_OPERATION.test(readFileSync(join(DASHBOARD_SRC, file), 'utf8')));
    expect(inline).toEqual([]);
  });
});
