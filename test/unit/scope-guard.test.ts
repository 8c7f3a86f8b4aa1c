import {
  buildSchema,
  getNamedType,
  isNonNullType,
  isObjectType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { buildGraphQLSchema } from '../../src/api/graphql/schema';
import { ROOT_FIELD_SCOPES } from '../../src/api/graphql/root-field-scopes';
import {
  crossingFields,
  fieldScopeTableProblems,
  NO_SCOPE_DATA,
  TYPE_SCOPES,
} from '../../src/api/graphql/field-scopes';
import { guardKeyScopes, NESTED_FIELD_SCOPES } from '../../src/api/graphql/scope-guard';

/** Every object type reachable from the root types' fields, by walking the schema. */
function reachableTypes(
  schema: GraphQLSchema,
  roots = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()],
): Set<string> {
  const seen = new Set<string>();
  const queue: GraphQLObjectType[] = roots.filter((t): t is GraphQLObjectType => !!t);
  while (queue.length > 0) {
    const type = queue.shift()!;
    for (const field of Object.values(type.getFields())) {
      const named = getNamedType(field.type);
      if (isObjectType(named) && !seen.has(named.name)) {
        seen.add(named.name);
        queue.push(named);
      }
    }
  }
  return seen;
}

describe('GraphQL scope guard', () => {
  let schema: GraphQLSchema;
  beforeAll(async () => {
    schema = await buildGraphQLSchema();
  });

  it('names only fields the schema has (a renamed field would lose its scopes)', () => {
    for (const path of [...Object.keys(ROOT_FIELD_SCOPES), ...Object.keys(NESTED_FIELD_SCOPES)]) {
      const [typeName, fieldName] = path.split('.');
      const type = schema.getType(typeName);
      const fields = type && 'getFields' in type ? type.getFields() : {};
      expect([path, fieldName in fields]).toEqual([path, true]);
    }
  });

  it('classifies every type reachable from every root field', () => {
    const reachable = [...reachableTypes(schema)].filter(
      (name) => !['Query', 'Mutation', 'Subscription'].includes(name),
    );
    expect(reachable.length).toBeGreaterThan(30);
    expect(reachable.filter((name) => !(name in TYPE_SCOPES))).toEqual([]);
  });

  it('guards every nested field that shows another scope data than its parent', () => {
    // Walked independently of the table: a field is guarded unless every scope that opens its
    // parent also opens its type. A future field that slips through fails here.
    for (const parentName of reachableTypes(schema)) {
      const parent = schema.getType(parentName) as GraphQLObjectType;
      const parentScopes = TYPE_SCOPES[parentName];
      if (parentScopes === undefined) continue; // the roots: ROOT_FIELD_SCOPES
      for (const field of Object.values(parent.getFields())) {
        const childScopes = TYPE_SCOPES[getNamedType(field.type).name];
        if (childScopes === undefined || childScopes === NO_SCOPE_DATA) continue;
        const opened =
          parentScopes !== NO_SCOPE_DATA && parentScopes.every((s) => childScopes.includes(s));
        const path = `${parentName}.${field.name}`;
        if (!opened) expect([path, NESTED_FIELD_SCOPES[path]]).toEqual([path, childScopes]);
      }
    }
    expect(crossingFields(schema).map((c) => c.path)).toEqual(['Merchant.webhookEndpoint']);
    expect(fieldScopeTableProblems(schema)).toEqual([]);
  });

  it('has no nested field of its own scope below a subscription (the websocket)', () => {
    // graphql-ws carries subscriptions only, on the same guarded schema; when a subscription
    // can reach such a field, add a websocket case to test/e2e/graphql-nested-scopes.
    const below = reachableTypes(schema, [schema.getSubscriptionType()]);
    expect([...below].sort()).toEqual(['Deposit', 'DepositPayer', 'DepositStatusChange']);
    const crossing = crossingFields(schema).filter((c) => below.has(c.path.split('.')[0]));
    expect(crossing).toEqual([]);
  });

  it('keeps a refused nested field nullable, so the refusal nulls that field only', () => {
    for (const { path, field } of crossingFields(schema)) {
      expect([path, isNonNullType(field.type)]).toEqual([path, false]);
    }
  });

  it('refuses to build a schema whose guarded field is gone', () => {
    expect(() => guardKeyScopes(buildSchema('type Query { a: Int }'))).toThrow(
      /no field WebhookEndpoint\.secret/,
    );
  });

  it('refuses to build a schema with an unguarded crossing field or an unclassified type', () => {
    const sdl = (extra: string) => `
      type Query { merchant: Merchant! }
      type Balance { usdAvailable: String! }
      type WebhookEndpoint { url: String! secret: String! }
      type Merchant { balance: Balance! webhookEndpoint: WebhookEndpoint ${extra} }`;
    expect(() => guardKeyScopes(buildSchema(sdl('')))).not.toThrow();
    expect(() =>
      guardKeyScopes(buildSchema(`${sdl('keys: [ApiKey!]!')} type ApiKey { id: ID! }`)),
    ).toThrow(/Merchant\.keys shows all data: not in NESTED_FIELD_SCOPES/);
    expect(() =>
      guardKeyScopes(buildSchema(`${sdl('audit: Audit')} type Audit { id: ID! }`)),
    ).toThrow(/type Audit has no TYPE_SCOPES entry/);
    // A type only a root field answers may go unclassified; its object fields then all cross.
    expect(() =>
      guardKeyScopes(
        buildSchema(`${sdl('')} type Probe { x: Int } extend type Query { p: Probe }`),
      ),
    ).not.toThrow();
    expect(() =>
      guardKeyScopes(
        buildSchema(`${sdl('')} type Dash { m: Merchant } extend type Query { d: Dash }`),
      ),
    ).toThrow(/Dash\.m shows balance:read data: not in NESTED_FIELD_SCOPES/);
  });
});
