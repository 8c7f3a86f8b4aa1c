import { buildSchema, parse, specifiedRules, validate } from 'graphql';
import { queryLimitsRule } from '../../src/api/graphql/limits';

const schema = buildSchema(`
  type Node { id: ID, child: Node }
  type Query { node: Node }
`);
const rules = [...specifiedRules, queryLimitsRule({ maxDepth: 3, maxAliases: 2, maxFields: 10 })];

function errorsOf(document: string): string[] {
  return validate(schema, parse(document), rules).map((error) => error.message);
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
    expect(errors[0]).toMatch(/depth/i);
    expect(errors[0]).toContain('4');
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

  it('counts aliases inside fragments', () => {
    const document = `
      query { node { ...F } }
      fragment F on Node { a: id b: id c: id }
    `;
    expect(errorsOf(document).some((message) => /alias/i.test(message))).toBe(true);
  });

  it('passes 10 fields and refuses 11', () => {
    const fields = (n: number) =>
      `{ node { ${Array.from({ length: n - 1 }, () => 'id').join(' ')} } }`;
    expect(errorsOf(fields(10))).toEqual([]);
    const errors = errorsOf(fields(11));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/11 fields/);
  });
});
