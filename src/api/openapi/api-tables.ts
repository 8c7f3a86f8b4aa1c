/**
 * The tables of docs/api.md that are facts of the code, rendered from the OpenAPI document the
 * routes generate (`buildOpenApiDocument`): every REST route, and every webhook event (the
 * document's `webhooks`, which test/unit/openapi.test.ts holds equal to the event catalogue).
 * `npm run docs:generate` writes them between their markers; a test fails when they are stale.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const METHOD_ORDER = ['get', 'post', 'put', 'patch', 'delete'];

const CREDENTIALS: Record<string, string> = {
  '': 'none',
  secretKey: 'API key',
  'secretKey,clientSecret': 'API key, or the onramp’s client secret',
};

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** `| a | b |` rows with a header. */
function table(header: string[], rows: string[][]): string {
  const lines = [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`];
  for (const row of rows) lines.push(`| ${row.map(cell).join(' | ')} |`);
  return lines.join('\n');
}

function credentialOf(operation: Json, path: string): string {
  const schemes = (operation.security ?? []).flatMap((entry: Json) => Object.keys(entry));
  const key = schemes.join(',');
  if (key === '' && path.includes('/bank/')) return 'the bank provider’s signature';
  const known = CREDENTIALS[key];
  if (known === undefined) throw new Error(`no wording for the credential ${key} of ${path}`);
  return known;
}

/** Every REST operation: method and path, operationId, credential and summary, by path. */
export function routesTable(document: Json): string {
  const rows: string[][] = [];
  for (const path of Object.keys(document.paths).sort()) {
    const item = document.paths[path];
    const methods = Object.keys(item).sort(
      (a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b),
    );
    for (const method of methods) {
      const operation = item[method];
      rows.push([
        `\`${method.toUpperCase()} ${path}\``,
        `\`${operation.operationId}\``,
        credentialOf(operation, path),
        operation.summary,
      ]);
    }
  }
  return table(['Route', 'operationId', 'Credential', 'What it does'], rows);
}

/** Every webhook event: its name, when it is sent, and the object its `data` carries. */
export function eventsTable(document: Json): string {
  const rows = Object.entries(document.webhooks as Record<string, Json>).map(([event, item]) => {
    const envelope = item.post.requestBody.content['application/json'].schema.$ref as string;
    const schema = document.components.schemas[envelope.split('/').pop()!];
    const data = (schema.properties.data.$ref as string).split('/').pop()!;
    return [`\`${event}\``, item.post.summary, `\`${data}\``];
  });
  return table(['Event', 'When', '`data`'], rows);
}
