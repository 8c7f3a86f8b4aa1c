import fc from 'fast-check';
import { randomAddress } from '../../support/onramps';
import type { FuzzWorld } from './world';

/** Path and query fragments sent as they are: bad percent-encodings, overlong UTF-8, latin1. */
export const RAW_FRAGMENTS = [
  '%',
  '%E0%A4%A',
  '%C0%AE%C0%AE',
  '%00',
  '%2e%2e%2f%2e%2e%2f',
  '..',
  '%FF%FE%FD',
  '%ZZ',
  '%u0041',
  '%25',
  '%0A%0D',
  '%F0%9F%92%A9',
  '%ED%A0%80',
  '\u00e9\u00ff',
  ';a=b',
  '~!*()',
  '\'"',
  '[]',
  'a'.repeat(3000),
  '%41'.repeat(400),
];

/**
 * `Origin` headers a browser could send (A's allowed origin, B's, another site, the sandbox's
 * localhost, the gateway's own, a sandboxed frame's `null`) and some no browser sends; the
 * same strings go into `allowed_origins` as entries, well-formed or not.
 */
export function browserOrigins(world: FuzzWorld): string[] {
  return [
    ...world.a.allowedOrigins,
    ...world.b.allowedOrigins,
    'https://evil.fuzz.example',
    'http://localhost:5173',
    new URL(world.stack.url).origin,
    'null',
    'https://*.fuzz.example',
    'HTTPS://SHOP.FUZZ.EXAMPLE',
    `${world.a.allowedOrigins[0]}/`,
    `${world.a.allowedOrigins[0]}:443`,
    'http://localhost:*',
    'o'.repeat(300),
  ];
}

/** Strings that mean something somewhere: ids, numbers in odd spellings, injection attempts. */
export function plausibleStrings(world: FuzzWorld): string[] {
  const { a, b } = world;
  return [
    ...browserOrigins(world),
    ...a.onrampIds,
    ...a.depositIds,
    ...a.withdrawalIds,
    ...a.accountNumbers,
    ...a.bankReferences,
    ...b.onrampIds,
    ...b.depositIds,
    ...b.withdrawalIds,
    ...b.accountNumbers,
    ...b.bankReferences,
    b.merchantId,
    a.merchantId,
    'dep_00000000000000000000000000',
    'onr_01ARZ3NDEKTSV4RRFFQ69G5FAV',
    'USDC',
    'USDT',
    'USD',
    'NGN',
    'BASE',
    'ETH',
    'POLYGON',
    'AUTO_WITHDRAW',
    'MERCHANT_BALANCE',
    'PERMANENT',
    'THROWAWAY',
    'SETTLED',
    '0',
    '-1',
    '1.5',
    '1e309',
    '-0',
    'NaN',
    'Infinity',
    '0x0000000000000000000000000000000000000000',
    randomAddress(),
    randomAddress().toLowerCase(),
    '100',
    '5000.00',
    '0.000000001',
    '99999999999999999999999999999999.99',
    '2026-02-30',
    '2026-11-24T25:61:00Z',
    '',
    ' ',
    "' OR 1=1 --",
    '$where',
    '__proto__',
    '{{7*7}}',
    '\u0000',
    '\ud800',
    '\u202e\u2066',
    'ǅ\u0301\u0301\u0301',
    '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  ];
}

/** Any string at all: known ones, random unicode, huge ones. */
export function hostileString(world: FuzzWorld): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...plausibleStrings(world)) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 70_000 }).map((n) => 'x'.repeat(n)) },
  );
}

/** A JSON value of the wrong shape: any type, huge numbers, deep nesting. */
export function hostileJson(world: FuzzWorld): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: hostileString(world) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, [], {}),
    },
    { weight: 1, arbitrary: fc.double() },
    { weight: 1, arbitrary: fc.integer({ min: 20, max: 3000 }).map(deepValue) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  );
}

/** `[[[...]]]` or `{"a":{"a":...}}`, `depth` levels. */
export function deepValue(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i += 1) value = i % 2 ? [value] : { a: value };
  return value;
}

/** Body texts that are not the JSON the route wants (built as text: some do not parse). */
export function hostileBodyText(): fc.Arbitrary<string | Buffer> {
  return fc.oneof(
    fc.constantFrom(
      '',
      'null',
      '"just a string"',
      '[]',
      '{',
      '{"a":1,}',
      "{'a':1}",
      '{"a":1}{"b":2}',
      '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}',
      '{"type":"EPHEMERAL","type":"PERMANENT"}',
      '\ufeff{"a":1}',
      '{"amount":1e400}',
      '{"n":-0.0e-999999}',
      'NaN',
    ),
    fc.integer({ min: 10, max: 12_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
    fc.integer({ min: 10, max: 12_000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)),
    fc.integer({ min: 10, max: 12_000 }).map((n) => '['.repeat(n)),
    fc.integer({ min: 60_000, max: 200_000 }).map((n) => JSON.stringify({ pad: 'x'.repeat(n) })),
    fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
    fc.constant(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d])),
  );
}

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'APPLICATION/JSON',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=zzz',
  'application/xml',
  'application/merge-patch+json',
  '*/*',
  'application/json, text/plain',
  'application/json;;;',
  'a'.repeat(2000),
];

/** The credentials the fuzzers call with (B's own are never used: B is only ever the victim). */
export function credentials(world: FuzzWorld): fc.Arbitrary<{ label: string; header?: string }> {
  const { a } = world;
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant({ label: 'A key', header: `Bearer ${a.apiKey}` }) },
    {
      weight: 2,
      arbitrary: fc.constant({ label: 'A client secret', header: `Bearer ${a.clientSecret}` }),
    },
    {
      weight: 1,
      arbitrary: fc.constant({ label: 'revoked', header: `Bearer ${world.revokedKey}` }),
    },
    {
      weight: 1,
      arbitrary: fc.constant({ label: 'other env', header: `Bearer ${world.otherEnvironmentKey}` }),
    },
    {
      weight: 2,
      arbitrary: fc.constant({
        label: 'A restricted key',
        header: `Bearer ${world.restrictedKey}`,
      }),
    },
    {
      weight: 1,
      arbitrary: fc.constant({ label: 'A balance key', header: `Bearer ${world.balanceKey}` }),
    },
    {
      weight: 1,
      arbitrary: fc.constant({ label: 'A key elsewhere', header: `Bearer ${world.elsewhereKey}` }),
    },
    { weight: 1, arbitrary: fc.constant({ label: 'none' }) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          'Bearer',
          'Bearer ',
          `bearer ${a.apiKey}`,
          `Bearer  ${a.apiKey}`,
          `Basic ${Buffer.from(`${a.apiKey}:`).toString('base64')}`,
          `Bearer ${a.apiKey}x`,
          `Bearer ${a.apiKey.slice(0, -1)}`,
          'Bearer sk_test_',
          'Bearer oc_',
          'Bearer rk_test_abc',
          `Bearer sk_test_${'A'.repeat(9000)}`,
          'Bearer \u00e9\u00ff',
          `Bearer ${a.apiKey}, Bearer ${a.apiKey}`,
        )
        .map((header) => ({ label: 'malformed', header })),
    },
  );
}
