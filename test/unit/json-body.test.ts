import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../../src/api/json-body';

/** The depth check that runs before any JSON body is parsed: one pass, no recursion. */
describe('jsonDepthExceeds', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('allows the limit and refuses one level more, objects and arrays alike', () => {
    expect(jsonDepthExceeds(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonDepthExceeds(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    const objects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    expect(jsonDepthExceeds(objects(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonDepthExceeds(objects(MAX_JSON_DEPTH + 1))).toBe(true);
  });

  it('counts siblings as one level, not a sum', () => {
    const wide = `[${Array.from({ length: 1000 }, () => nested(10)).join(',')}]`;
    expect(jsonDepthExceeds(wide)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ a: '['.repeat(100), b: `\\"${'{'.repeat(100)}"` });
    expect(jsonDepthExceeds(text)).toBe(false);
    expect(jsonDepthExceeds(`{"a":"\\\\"}`)).toBe(false);
  });

  it('answers a million levels without overflowing the stack', () => {
    expect(jsonDepthExceeds(nested(1_000_000))).toBe(true);
    expect(jsonDepthExceeds('['.repeat(1_000_000))).toBe(true);
  });
});
