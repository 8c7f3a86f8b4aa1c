import { buildSchema, specifiedRules } from 'graphql';
import { DocumentCache } from '../../src/api/graphql/document-cache';

const schema = buildSchema('type Query { a: Int b: Int }');

describe('DocumentCache (parsed and validated graphql-ws documents)', () => {
  it('returns the same document for the same text and keeps only valid ones', () => {
    const cache = new DocumentCache(schema, specifiedRules, {
      maxEntries: 10,
      maxQueryLength: 100,
    });
    const first = cache.check('{ a }');
    const again = cache.check('{ a }');
    expect('document' in first && 'document' in again && again.document === first.document).toBe(
      true,
    );
    const broken = cache.check('{ a');
    expect('errors' in broken && broken.errors[0].message).toMatch(/Syntax Error/);
    const invalid = cache.check('{ c }');
    expect('errors' in invalid && invalid.errors[0].message).toMatch(/Cannot query field "c"/);
    expect(cache.size).toBe(1);
  });

  it('is bounded: least recently used goes first, long texts are never kept', () => {
    const cache = new DocumentCache(schema, specifiedRules, { maxEntries: 2, maxQueryLength: 20 });
    cache.check('{ a }');
    cache.check('{ b }');
    cache.check('{ a }'); // most recent now
    cache.check('{ a b }'); // evicts "{ b }"
    expect(cache.size).toBe(2);
    const b = cache.check('{ b }'); // parsed again, evicts "{ a }"
    expect('document' in b).toBe(true);
    cache.check(`{ ${'a '.repeat(20)}}`);
    expect(cache.size).toBe(2);
    for (let i = 0; i < 1000; i += 1) cache.check(`{ a${' '.repeat(i % 15)} }`);
    expect(cache.size).toBe(2);
  });
});
