import fc from 'fast-check';
import type { SentRequest } from './oracle';
import {
  browserOrigins,
  CONTENT_TYPES,
  credentials,
  hostileBodyText,
  hostileJson,
  hostileString,
  plausibleStrings,
  RAW_FRAGMENTS,
} from './hostile';
import type { FuzzWorld } from './world';

type Schema = Record<string, unknown> & {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
};

/** One operation of the OpenAPI document, or a route it hides (dashboard, health, GraphQL GET). */
export interface Operation {
  method: string;
  /** `/v1/onramp/{id}` */
  template: string;
  query: Array<{ name: string; schema: Schema }>;
  body?: Schema;
}

const HIDDEN: Operation[] = [
  { method: 'GET', template: '/health', query: [] },
  { method: 'GET', template: '/metrics', query: [] },
  { method: 'GET', template: '/v1/openapi.json', query: [] },
  { method: 'GET', template: '/dashboard', query: [] },
  { method: 'GET', template: '/dashboard/assets/{id}', query: [] },
  { method: 'GET', template: '/dashboard/api/session', query: [] },
  { method: 'DELETE', template: '/dashboard/api/session', query: [] },
  {
    method: 'POST',
    template: '/dashboard/api/session',
    query: [],
    body: { type: 'object', properties: { api_key: { type: 'string' } } },
  },
  { method: 'GET', template: '/v1/{id}', query: [] },
  { method: 'GET', template: '/{id}', query: [] },
];

/** Every operation the gateway documents, plus the hidden ones: new routes are fuzzed unasked. */
export function operationsOf(openapi: {
  paths: Record<string, Record<string, Record<string, unknown>>>;
}): Operation[] {
  const operations: Operation[] = [];
  for (const [template, methods] of Object.entries(openapi.paths)) {
    for (const [method, spec] of Object.entries(methods)) {
      const parameters = (spec.parameters ?? []) as Array<{
        in: string;
        name: string;
        schema: Schema;
      }>;
      const content = (spec.requestBody as { content?: Record<string, { schema: Schema }> })
        ?.content;
      operations.push({
        method: method.toUpperCase(),
        template,
        query: parameters.filter((p) => p.in === 'query'),
        body: content?.['application/json']?.schema,
      });
    }
  }
  return [...operations, ...HIDDEN];
}

/** A value that fits the schema (the more often), or does not. */
function valueFor(schema: Schema, world: FuzzWorld, depth = 0): fc.Arbitrary<unknown> {
  const hostile = hostileJson(world);
  const strings = fc.constantFrom(...plausibleStrings(world));
  let fitting: fc.Arbitrary<unknown>;
  const variants = schema.anyOf ?? schema.oneOf;
  if (schema.enum) fitting = fc.constantFrom(...schema.enum);
  else if (variants) fitting = fc.oneof(...variants.map((v) => valueFor(v, world, depth + 1)));
  else if (schema.type === 'object' && schema.properties && depth < 4) {
    const shape: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, property] of Object.entries(schema.properties)) {
      shape[name] = valueFor(property, world, depth + 1);
    }
    fitting = fc
      .tuple(
        fc.record(shape, { requiredKeys: schema.required ?? [] }),
        fc.dictionary(
          fc.constantFrom('extra', '__proto__', 'constructor', 'x'.repeat(300)),
          hostile,
          {
            maxKeys: 1,
          },
        ),
        fc.boolean(),
      )
      .map(([known, extra, addExtra]) => (addExtra ? { ...known, ...extra } : known));
  } else if (schema.type === 'integer' || schema.type === 'number') {
    fitting = fc.oneof(fc.integer({ min: -5, max: 200 }), fc.constantFrom(1, 100, 1e21, -0.5));
  } else if (schema.type === 'boolean') fitting = fc.boolean();
  else if (schema.type === 'array' && schema.items) {
    fitting = fc.array(valueFor(schema.items, world, depth + 1), { maxLength: 3 });
  } else fitting = strings;
  return fc.oneof({ weight: 4, arbitrary: fitting }, { weight: 1, arbitrary: hostile });
}

/** A path or query value: known ids (A's and B's), hostile strings encoded, or raw fragments. */
function urlValue(world: FuzzWorld): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: hostileString(world).map((s) => encodeURIComponent(safeUtf16(s))) },
    { weight: 2, arbitrary: fc.constantFrom(...RAW_FRAGMENTS) },
  );
}

/** Lone surrogates make encodeURIComponent throw; the raw fragments cover broken encodings. */
function safeUtf16(text: string): string {
  return text.replace(/[\ud800-\udfff]/g, '\ufffd');
}

function queryString(operation: Operation, world: FuzzWorld): fc.Arbitrary<string> {
  const names = [...operation.query.map((q) => q.name), 'page', 'per_page', 'from', 'to', 'x'];
  const numbers = fc.constantFrom(
    '1',
    '2',
    '100',
    '101',
    '0',
    '-1',
    '1.5',
    '1e3',
    '9'.repeat(30),
    'abc',
  );
  const pair = fc
    .tuple(
      fc.oneof(fc.constantFrom(...names), urlValue(world)),
      fc.oneof(numbers, urlValue(world), fc.constant('')),
      fc.constantFrom('=', '', '=='),
    )
    .map(([name, value, eq]) => `${name}${eq}${eq ? value : ''}`);
  // Duplicates come for free: the same name can be drawn twice.
  return fc
    .array(pair, { maxLength: 5 })
    .chain((pairs) =>
      fc.constantFrom(
        pairs.length ? `?${pairs.join('&')}` : '',
        `?${pairs.join('&')}&&`,
        pairs.length ? `?${pairs.join('&')}#frag` : '?',
      ),
    );
}

function pathOf(operation: Operation, world: FuzzWorld): fc.Arbitrary<string> {
  const holes = operation.template.match(/\{[^}]+\}/g) ?? [];
  return fc
    .tuple(
      fc.array(urlValue(world), { minLength: holes.length, maxLength: holes.length }),
      fc.nat(9),
    )
    .map(([values, twist]) => {
      let i = 0;
      const path = operation.template.replace(/\{[^}]+\}/g, () => values[i++]);
      // Now and then a spelling the router must not mistake: trailing slash, doubled slashes.
      if (twist === 0) return `${path}/`;
      if (twist === 1) return path.replace(/\//g, '//');
      if (twist === 2) return path.toUpperCase();
      return path;
    });
}

/** A whole REST request for one operation: path, query, headers, body, credential. */
export function restRequest(operations: Operation[], world: FuzzWorld): fc.Arbitrary<SentRequest> {
  return fc.constantFrom(...operations).chain((operation) =>
    fc
      .record({
        path: pathOf(operation, world),
        query: fc.oneof(
          { weight: 2, arbitrary: fc.constant('') },
          { weight: 3, arbitrary: queryString(operation, world) },
        ),
        method: fc.oneof(
          { weight: 8, arbitrary: fc.constant(operation.method) },
          {
            weight: 1,
            arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
          },
        ),
        credential: credentials(world),
        body: fc.oneof(
          {
            weight: 6,
            arbitrary: valueFor(operation.body ?? { type: 'object' }, world).map(
              (v) => JSON.stringify(v) ?? '',
            ),
          },
          { weight: 2, arbitrary: hostileBodyText() },
          { weight: 1, arbitrary: fc.constant(undefined) },
        ),
        contentType: fc.oneof(
          { weight: 8, arbitrary: fc.constant('application/json') },
          { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
          { weight: 1, arbitrary: fc.constant(undefined) },
        ),
        idempotencyKey: fc.oneof(
          { weight: 6, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.constantFrom('fuzz-fixed', '', 'k'.repeat(300), '\u00e9') },
          { weight: 1, arbitrary: fc.uuid() },
        ),
        extraHeaders: fc.dictionary(
          fc.constantFrom(
            'x-request-id',
            'cookie',
            'x-csrf-token',
            'accept',
            'origin',
            'x-forwarded-for',
          ),
          fc.constantFrom(
            '../../etc',
            'onramp_session=abc',
            'x'.repeat(500),
            '*/*',
            'null',
            '1.2.3.4, ::1',
          ),
          { maxKeys: 2 },
        ),
        origin: fc.oneof(
          { weight: 7, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.constantFrom(...browserOrigins(world)) },
        ),
      })
      .map((r) => {
        const headers: Record<string, string> = { ...r.extraHeaders };
        if (r.origin !== undefined) headers.origin = r.origin;
        if (r.credential.header !== undefined) headers.authorization = r.credential.header;
        const hasBody = r.body !== undefined && !['GET', 'HEAD'].includes(r.method);
        if (hasBody && r.contentType !== undefined) headers['content-type'] = r.contentType;
        if (r.idempotencyKey !== undefined) headers['idempotency-key'] = r.idempotencyKey;
        return {
          transport: 'rest',
          method: r.method,
          path: `${r.path}${r.query}`,
          headers,
          body: hasBody ? r.body : undefined,
          credential: r.credential.label,
        };
      }),
  );
}
