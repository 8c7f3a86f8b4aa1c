import { buildSchema, parse, specifiedRules, validate } from 'graphql';
import { measureOperation, fragmentsOf, queryLimitsRule } from '../../src/api/graphql/limits';
import { operationLimitError } from '../../src/api/graphql/validation-rules';
import { aliasedDepositPages, fragmentBomb } from '../support/graphql-documents';

const schema = buildSchema(`
  type Change { status: String }
  type Item { id: ID, history: [Change], children(first: Int): ItemConnection }
  type ItemEdge { node: Item }
  type ItemConnection { edges: [ItemEdge], total: Int }
  type Node { id: ID, child: Node }
  type Query { node: Node, items(first: Int): ItemConnection }
`);
const limits = { maxDepth: 3, maxAliases: 2, maxCost: 10 };
const rules = [...specifiedRules, queryLimitsRule(limits)];

function errorsOf(document: string): string[] {
  return validate(schema, parse(document), rules).map((error) => error.message);
}

/** The operation's refusal with the request's variables (as Apollo checks before executing). */
function refusalWith(
  document: string,
  variables: Record<string, unknown>,
  max = { maxDepth: 10, maxAliases: 20, maxCost: 1000 },
): string | null {
  return operationLimitError(schema, parse(document), undefined, variables, max)?.message ?? null;
}

describe('queryLimitsRule', () => {
  it('passes a shallow query', () => {
    expect(errorsOf('{ node { id } }')).toEqual([]);
  });

  it('passes a query exactly at the depth limit', () => {
    expect(errorsOf('{ node { child { id } } }')).toEqual([]);
  });

  it('refuses a query of depth 4', () => {
    const errors = errorsOf('{ node { child { child { id } } } }');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/depth exceeds the limit of 3/i);
  });

  it('reports the limit code on the error', () => {
    const [error] = validate(schema, parse('{ node { child { child { id } } } }'), rules);
    expect(error.extensions.code).toBe('INVALID_PARAMETER');
  });

  it('passes two aliases and refuses three', () => {
    expect(errorsOf('{ a: node { id } b: node { id } }')).toEqual([]);
    const errors = errorsOf('{ a: node { id } b: node { id } c: node { id } }');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/alias/i);
  });

  it('counts depth through fragment spreads', () => {
    const deep = `
      query { node { ...F } }
      fragment F on Node { child { child { id } } }
    `;
    const errors = errorsOf(deep);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/depth/i);
  });

  it('counts depth through inline fragments', () => {
    const errors = errorsOf('{ node { ... on Node { child { child { id } } } } }');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/depth/i);
  });

  it('does not add depth for the fragment itself', () => {
    expect(errorsOf('{ node { ... on Node { child { id } } } }')).toEqual([]);
    expect(errorsOf('query { node { ...F } } fragment F on Node { child { id } }')).toEqual([]);
  });

  it('counts aliases inside fragments, once per spread', () => {
    const document = `
      query { node { ...F } }
      fragment F on Node { a: id b: id c: id }
    `;
    expect(errorsOf(document).some((message) => /alias/i.test(message))).toBe(true);
    const twice = 'query { node { ...G ...G } } fragment G on Node { a: id b: id }';
    expect(errorsOf(twice).some((message) => /alias/i.test(message))).toBe(true);
  });

  it('costs 10 fields and refuses 11 when no list multiplies them', () => {
    const fields = (n: number) =>
      `{ node { ${Array.from({ length: n - 1 }, () => 'id').join(' ')} } }`;
    expect(errorsOf(fields(10))).toEqual([]);
    const errors = errorsOf(fields(11));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/cost exceeds the limit of 10/);
  });
});

describe('query cost multiplies by list sizes', () => {
  const max = { maxDepth: 10, maxAliases: 20, maxCost: 1000 };
  /** The smallest cost limit the document passes: its cost (Infinity beyond 10,000). */
  const cost = (document: string, variables: Record<string, unknown> = {}) => {
    const passes = (limit: number) =>
      refusalWith(document, variables, { ...max, maxCost: limit }) === null;
    if (!passes(10_000)) return Infinity;
    let [low, high] = [0, 10_000];
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      if (passes(middle)) high = middle;
      else low = middle + 1;
    }
    return low;
  };

  it('multiplies the children of a list by `first`', () => {
    // 1 (items) + 100 * (edges + node + history + status)
    expect(cost('{ items(first: 100) { edges { node { history { status } } } } }')).toBe(401);
  });

  it('counts an absent `first` as the default page size (20)', () => {
    expect(cost('{ items { edges { node { id } } } }')).toBe(1 + 20 * 3);
  });

  it('multiplies nested lists', () => {
    const nested =
      '{ items(first: 100) { edges { node { children(first: 100) { edges { node { id } } } } } } }';
    // 1 + 100 * (1 + 1 + (1 + 100 * 3)) = 30,301; 20 x 20: 1 + 20 * (2 + 1 + 20 * 3) = 1,261
    expect(cost(nested)).toBe(Infinity);
    expect(refusalWith(nested, {}, { ...max, maxCost: 100_000 })).toBeNull();
    expect(
      refusalWith(
        '{ items(first: 20) { edges { node { children(first: 20) { edges { node { id } } } } } } }',
        {},
        { ...max, maxCost: 1261 },
      ),
    ).toBeNull();
    expect(
      refusalWith(
        '{ items(first: 20) { edges { node { children(first: 20) { edges { node { id } } } } } } }',
        {},
        { ...max, maxCost: 1260 },
      ),
    ).toMatch(/cost/);
  });

  it('reads `first` from the request variables, then the default value, then the page default', () => {
    const query = 'query($n: Int) { items(first: $n) { edges { node { id } } } }';
    expect(cost(query, { n: 100 })).toBe(301);
    expect(cost(query, { n: 2 })).toBe(1 + 2 * 3);
    expect(cost(query, {})).toBe(1 + 20 * 3);
    expect(cost('query($n: Int = 100) { items(first: $n) { edges { node { id } } } }')).toBe(301);
    // Beyond the largest page the resolver refuses the request; the cost counts the largest.
    expect(cost(query, { n: 1_000_000 })).toBe(301);
  });

  it('refuses twenty aliased full pages with their histories (8,020) at the gateway limit', () => {
    const document = parse(
      aliasedDepositPages()
        .replace(/deposits/g, 'items')
        .replace(/statusHistory/g, 'history'),
    );
    const [operation] = document.definitions as never[];
    const refusal = measureOperation(
      schema,
      operation,
      fragmentsOf(document),
      { maxDepth: 10, maxAliases: 20, maxCost: 5000 },
      { values: {} },
    );
    expect(refusal?.message).toMatch(/cost exceeds the limit of 5000/);
  });

  it('counts variable page sizes as 1 in validation; their values are checked before execution', () => {
    const rule = [...specifiedRules, queryLimitsRule({ ...max, maxCost: 10 })];
    const query = 'query($n: Int) { items(first: $n) { edges { node { id } } } }';
    expect(validate(schema, parse(query), rule)).toEqual([]);
    expect(refusalWith(query, { n: 100 }, { ...max, maxCost: 10 })).toMatch(/cost/);
  });
});

describe('fragments are measured once', () => {
  // Six levels (30^5 selections) keep the unmemoised walk this replaced at seconds, not
  // forever: the gateway e2e test sends the ten-level document.
  it('refuses six fragments each spreading the next thirty times (30^5 selections) at once', () => {
    const document = parse(fragmentBomb({ fragments: 6, spreads: 30, leaf: 'node { id }' }));
    const started = performance.now();
    const errors = validate(schema, document, [...specifiedRules, queryLimitsRule(limits)]);
    expect(performance.now() - started).toBeLessThan(200);
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/cost exceeds/)]);
  });

  it('measures a 30^99 expansion (100 fragments) without walking it', () => {
    const document = parse(fragmentBomb({ fragments: 100, spreads: 30, leaf: 'node { id }' }), {
      maxTokens: 100_000,
    });
    const [operation] = document.definitions as never[];
    const started = performance.now();
    const refusal = measureOperation(schema, operation, fragmentsOf(document), {
      maxDepth: 10,
      maxAliases: 20,
      maxCost: Number.MAX_SAFE_INTEGER,
    });
    expect(performance.now() - started).toBeLessThan(50);
    expect(refusal?.message).toMatch(/cost exceeds/);
  });

  it('adds a reused fragment once per spread, the same as expanding it', () => {
    // F costs 3; spread three times under node: 1 + 3 * 3 = 10, within 10; four: 1 + 4 * 3 = 13.
    expect(errorsOf('{ node { ...F ...F ...F } } fragment F on Node { id child { id } }')).toEqual(
      [],
    );
    expect(
      errorsOf('{ node { ...G ...G ...G ...G } } fragment G on Node { id child { id } }'),
    ).toEqual([expect.stringMatching(/cost/)]);
  });
});
