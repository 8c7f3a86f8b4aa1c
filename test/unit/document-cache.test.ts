import { createHash } from 'node:crypto';
import { buildSchema, specifiedRules } from 'graphql';
import { BoundedCache } from '../../src/api/graphql/bounded-cache';
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

describe('BoundedCache (documents, persisted queries)', () => {
  it('evicts the least recently used past its total size, and never keeps an oversized entry', async () => {
    const cache = new BoundedCache<string>(
      { maxEntries: 100, maxTotalSize: 10, maxEntrySize: 6 },
      (text) => text.length,
    );
    cache.put('a', 'aaaa');
    cache.put('b', 'bbbb');
    expect(await cache.get('a')).toBe('aaaa'); // most recent now
    cache.put('c', 'cccc'); // 12 > 10: evicts "b"
    expect([await cache.get('a'), await cache.get('b'), await cache.get('c')]).toEqual([
      'aaaa',
      undefined,
      'cccc',
    ]);
    cache.put('d', 'ddddddd'); // over the entry size: not kept, nothing evicted
    expect(cache.size).toBe(2);
    cache.put('a', 'a'); // replacing an entry counts its new size only
    cache.put('e', 'eeeeee'); // 1 + 4 + 6 = 11 > 10: evicts "c", the oldest
    expect([await cache.get('a'), await cache.get('c'), await cache.get('e')]).toEqual([
      'a',
      undefined,
      'eeeeee',
    ]);
    expect(await cache.delete('a')).toBe(true);
    expect(await cache.delete('a')).toBe(false);
  });

  it('bounds documents by their texts together, and takes Apollo’s prefixed keys', async () => {
    const cache = new DocumentCache(schema, specifiedRules, {
      maxEntries: 100,
      maxQueryLength: 100,
      maxTotalLength: 12,
    });
    cache.check('{ a }');
    cache.check('{ b }');
    cache.check('{ a b }'); // 5 + 5 + 7 > 12: "{ a }" goes
    expect(cache.size).toBe(2);
    const b = cache.check('{ b }');
    const hash = createHash('sha256').update('{ b }').digest('hex');
    expect(await cache.documentStore.get(`schemahash:${hash}`)).toBe('document' in b && b.document);
  });
});
