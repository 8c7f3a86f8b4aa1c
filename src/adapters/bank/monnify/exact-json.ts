/**
 * A JSON reader that keeps every number as the text it was written in. Monnify writes naira
 * amounts as JSON numbers in some answers and strings in others (MN-EVT samples: `3000`,
 * `"2990.00"`); `JSON.parse` would turn `5000.505` or `5000.0000000000001` into a float and
 * hide the extra places we must refuse. Node 20 has no `JSON.parse` source-text access, hence
 * this small strict reader (RFC 8259, no duplicate keys, bounded nesting).
 */

/** A JSON number, as written. */
export class JsonNumber {
  constructor(readonly text: string) {}
}

export type JsonValue =
  null | boolean | string | JsonNumber | JsonValue[] | { [key: string]: JsonValue };

export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError';
}

/** Deeper than any answer Monnify documents; hostile nesting fails fast instead of the stack. */
const MAX_DEPTH = 32;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
// Control characters must be escaped inside a JSON string (RFC 8259 section 7).
// eslint-disable-next-line no-control-regex
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const WHITESPACE = /[ \t\n\r]*/y;

export function parseExactJson(text: string): JsonValue {
  let at = 0;

  const skipWhitespace = () => {
    WHITESPACE.lastIndex = at;
    WHITESPACE.exec(text);
    at = WHITESPACE.lastIndex;
  };
  const fail = (what: string): never => {
    throw new JsonSyntaxError(`${what} at position ${at}`);
  };
  const readString = (): string => {
    STRING.lastIndex = at;
    const match = STRING.exec(text);
    if (!match) return fail('bad string');
    at = STRING.lastIndex;
    // The pattern admits only valid JSON strings, so JSON.parse decodes the escapes exactly.
    return JSON.parse(match[0]) as string;
  };
  const expect = (char: string) => {
    skipWhitespace();
    if (text[at] !== char) fail(`expected '${char}'`);
    at += 1;
  };

  const readValue = (depth: number): JsonValue => {
    if (depth > MAX_DEPTH) fail('nesting too deep');
    skipWhitespace();
    const char = text[at];
    if (char === '{') {
      at += 1;
      const object: { [key: string]: JsonValue } = Object.create(null) as {
        [key: string]: JsonValue;
      };
      skipWhitespace();
      if (text[at] === '}') {
        at += 1;
        return object;
      }
      for (;;) {
        skipWhitespace();
        if (text[at] !== '"') fail('expected a key');
        const key = readString();
        if (Object.prototype.hasOwnProperty.call(object, key)) fail(`duplicate key "${key}"`);
        expect(':');
        object[key] = readValue(depth + 1);
        skipWhitespace();
        if (text[at] === ',') at += 1;
        else if (text[at] === '}') {
          at += 1;
          return object;
        } else fail("expected ',' or '}'");
      }
    }
    if (char === '[') {
      at += 1;
      const array: JsonValue[] = [];
      skipWhitespace();
      if (text[at] === ']') {
        at += 1;
        return array;
      }
      for (;;) {
        array.push(readValue(depth + 1));
        skipWhitespace();
        if (text[at] === ',') at += 1;
        else if (text[at] === ']') {
          at += 1;
          return array;
        } else fail("expected ',' or ']'");
      }
    }
    if (char === '"') return readString();
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return value;
      }
    }
    NUMBER.lastIndex = at;
    const number = NUMBER.exec(text);
    if (!number) return fail('unexpected character');
    at = NUMBER.lastIndex;
    return new JsonNumber(number[0]);
  };

  const value = readValue(0);
  skipWhitespace();
  if (at !== text.length) fail('unexpected text after the value');
  return value;
}

export function isJsonObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof JsonNumber)
  );
}
