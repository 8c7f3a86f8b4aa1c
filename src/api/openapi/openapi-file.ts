// What docs/openapi.json holds, and how a stale copy is reported (no route imports here:
// the drift test loads this in jest, the document itself comes from the built gateway code).

/** The file's text: two-space JSON with a trailing newline (key order is the document's). */
export const openApiFileText = (document: unknown): string =>
  `${JSON.stringify(document, null, 2)}\n`;

/** Null when the checked-in text is what the routes generate; else where it first differs. */
export function openApiFileDrift(generated: string, onDisk: string): string | null {
  if (generated === onDisk) return null;
  const a = generated.split('\n');
  const b = onDisk.split('\n');
  const line = a.findIndex((text, i) => text !== b[i]);
  const at = line === -1 ? a.length + 1 : line + 1;
  return `docs/openapi.json is stale at line ${at} (run \`npm run openapi\`): expected ${JSON.stringify(a[at - 1] ?? '')}, found ${JSON.stringify(b[at - 1] ?? '')}`;
}
