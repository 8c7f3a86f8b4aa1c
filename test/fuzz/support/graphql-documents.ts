import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  buildSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  type GraphQLArgument,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { hostileString, plausibleStrings } from './hostile';
import type { FuzzWorld } from './world';

/**
 * The served schema. `schema.graphql` is generated from the code and kept equal to it by a test,
 * so it is the same schema introspection would give, and it is there in production too.
 */
export function servedSchema(): GraphQLSchema {
  return buildSchema(readFileSync(join(__dirname, '..', '..', '..', 'schema.graphql'), 'utf8'));
}

/** A GraphQL literal for an input type: fitting (the more often) or of any other type. */
function literal(type: GraphQLInputType, world: FuzzWorld, depth = 0): fc.Arbitrary<string> {
  const wrong = fc.oneof(
    fc.constantFrom(
      'null',
      '1',
      '-1',
      '1.5',
      '1e400',
      '99999999999999999999',
      'true',
      '[]',
      '{}',
      'FOO',
    ),
    hostileString(world).map((s) => JSON.stringify(s.slice(0, 2000))),
  );
  const inner = isNonNullType(type) ? type.ofType : type;
  let fitting: fc.Arbitrary<string>;
  if (isListType(inner)) {
    fitting = fc
      .array(literal(inner.ofType as GraphQLInputType, world, depth + 1), { maxLength: 3 })
      .map((items) => `[${items.join(', ')}]`);
  } else if (isEnumType(inner)) {
    fitting = fc.constantFrom(...inner.getValues().map((v) => v.name));
  } else if (isInputObjectType(inner) && depth < 3) {
    const fields = Object.values(inner.getFields());
    fitting = fc
      .tuple(...fields.map((f) => fc.option(literal(f.type, world, depth + 1), { nil: undefined })))
      .map((values) => {
        const set = fields.map((f, i) =>
          values[i] === undefined ? '' : `${f.name}: ${values[i]}`,
        );
        return `{${set.filter(Boolean).join(', ')}}`;
      });
  } else if (inner.toString() === 'Boolean') {
    // Both values: `requireAddressBook: false` is a widening the settings must hold back.
    fitting = fc.constantFrom('true', 'false');
  } else if (inner.toString() === 'Int') {
    fitting = fc.constantFrom('0', '1', '10', '100', '101', '-1', '2147483648');
  } else {
    fitting = fc.constantFrom(...plausibleStrings(world)).map((s) => JSON.stringify(s));
  }
  return fc.oneof({ weight: 9, arbitrary: fitting }, { weight: 1, arbitrary: wrong });
}

function argumentsOf(args: readonly GraphQLArgument[], world: FuzzWorld): fc.Arbitrary<string> {
  if (args.length === 0) {
    return fc.oneof(
      { weight: 100, arbitrary: fc.constant('') },
      { weight: 1, arbitrary: fc.constant('(bogus: 1)') },
    );
  }
  // Required arguments are nearly always given: a missing one only tests the validator.
  const given = (a: GraphQLArgument) =>
    isNonNullType(a.type)
      ? fc.option(literal(a.type, world), { nil: undefined, freq: 20 })
      : fc.option(literal(a.type, world), { nil: undefined, freq: 2 });
  return fc.tuple(...args.map(given)).map((values) => {
    const set = args.map((a, i) => (values[i] === undefined ? '' : `${a.name}: ${values[i]}`));
    const text = set.filter(Boolean).join(', ');
    return text ? `(${text})` : '';
  });
}

/** A selection set on `type`, `depth` levels at most, with aliases, typename and fragments. */
function selection(type: GraphQLObjectType, world: FuzzWorld, depth: number): fc.Arbitrary<string> {
  const fields = Object.values(type.getFields());
  const one = fc.constantFrom(...fields).chain((field) => {
    const named = getNamedType(field.type);
    const sub =
      isLeafType(named) || depth <= 0
        ? isLeafType(named)
          ? fc.constant('')
          : fc.constant(' { __typename }')
        : selection(named as GraphQLObjectType, world, depth - 1).map((s) => ` ${s}`);
    return fc
      .tuple(
        fc.option(fc.constantFrom('a', 'b', 'x1', '__proto__', 'constructor'), { freq: 4 }),
        argumentsOf(field.args, world),
        sub,
        fc.nat(9),
      )
      .map(([alias, args, subSelection, wrap]) => {
        const head = `${alias ? `${alias}: ` : ''}${field.name}${args}`;
        // Now and then the same field through an inline fragment, or with a directive.
        if (wrap === 0) return `... on ${type.name} { ${head}${subSelection} }`;
        if (wrap === 1) return `${head} @include(if: true)${subSelection}`;
        return `${head}${subSelection}`;
      });
  });
  // Every field gets an alias of its own (a repeated alias or a field asked twice with other
  // arguments is only a validation error), except now and then, so conflicts are tried too.
  return fc
    .tuple(fc.array(one, { minLength: 1, maxLength: 4 }), fc.nat(9))
    .map(([parts, clash]) => {
      const own = parts.map((part, i) =>
        part.startsWith('...')
          ? part
          : part.replace(/^(?:\w+: )?(\w+)/, (_all, name: string) => `f${i}_${name}: ${name}`),
      );
      return `{ ${(clash === 0 ? parts : own).join(' ')} }`;
    });
}

/** `levels` fragments, each spreading the next `width` times: expands to width^levels. */
export function fragmentBomb(levels: number, width: number): string {
  const fragments = Array.from({ length: levels }, (_, i) => {
    const body =
      i === levels - 1
        ? 'id'
        : Array(width)
            .fill(`...F${i + 1}`)
            .join(' ');
    return `fragment F${i} on Deposit { ${body} }`;
  });
  return `query { deposits(first: 1) { edges { node { ...F0 } } } }\n${fragments.join('\n')}`;
}

/** Documents of any shape: over the real schema, broken ones, huge and deep ones, bombs. */
export function graphqlDocument(schema: GraphQLSchema, world: FuzzWorld): fc.Arbitrary<string> {
  const root = (type: GraphQLObjectType | null | undefined, keyword: string) =>
    selection(type!, world, 4).map((s) => `${keyword} ${s}`);
  const garbage = fc.constantFrom(
    '',
    '{',
    'query {',
    '}}}}',
    'query ($a: ) { merchant { id } }',
    'mutation { withdraw }',
    'subscription { depositUpdated { id } }',
    '{ merchant { id } } { merchant { id } }',
    'query A { merchant { id } } query A { merchant { id } }',
    '# only a comment',
    '\u0000{ merchant { id } }',
    'fragment F on Deposit { ...F } query { deposit(id: "x") { ...F } }',
    '{ __schema { types { name fields { name type { name ofType { name ofType { name ofType { name } } } } } } } }',
    '{ __type(name: "Deposit") { name } }',
  );
  const huge = fc.oneof(
    fc
      .integer({ min: 50, max: 2000 })
      .map((n) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: merchant { id }`).join(' ')} }`),
    fc
      .integer({ min: 12, max: 400 })
      .map((n) => `{ ${'merchant { balance { '.repeat(1)}${'__typename '.repeat(n)} } } }`),
    fc
      .integer({ min: 11, max: 3000 })
      .map((n) => `{ ${'deposits { edges { node { '.repeat(1)}${'a: id '.repeat(n)} } } } }`),
    fc.integer({ min: 20, max: 5000 }).map((n) => `${'{ merchant '.repeat(n)}${'}'.repeat(n)}`),
    fc.integer({ min: 10, max: 100_000 }).map((n) => `{ merchant { id } }${' '.repeat(n)}`),
    fc
      .tuple(fc.integer({ min: 2, max: 6 }), fc.integer({ min: 2, max: 8 }))
      .map(([l, w]) => fragmentBomb(l, w)),
  );
  // Nested fields that show another scope's data than their parent, reached in several ways:
  // random selections seldom go that deep, and a restricted key must never see them.
  const nestedScopes = fc.constantFrom(
    '{ merchant { name webhookEndpoint { url enabledEvents } } }',
    '{ m: merchant { ...F } } fragment F on Merchant { w: webhookEndpoint { secret url } }',
    '{ merchant { ... on Merchant { webhookEndpoint { id status } } balance { usdAvailable } } }',
    '{ __proto__: merchant { constructor: webhookEndpoint { url } } }',
    '{ deposits(first: 1) { totalCount } merchant { webhookEndpoint @include(if: true) { url } } }',
  );
  return fc.oneof(
    { weight: 6, arbitrary: root(schema.getQueryType(), 'query') },
    { weight: 1, arbitrary: nestedScopes },
    { weight: 2, arbitrary: root(schema.getMutationType(), 'mutation') },
    { weight: 1, arbitrary: root(schema.getSubscriptionType(), 'subscription') },
    { weight: 2, arbitrary: garbage },
    { weight: 1, arbitrary: huge },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
  );
}

/** A `variables` object of the wrong shape now and then (documents mostly use literals). */
export function variables(world: FuzzWorld): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom(null, 'string', 1, [], { id: world.b.depositIds[0] }) },
    {
      weight: 1,
      arbitrary: fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), {
        maxKeys: 3,
      }),
    },
  );
}
