import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..');
const GENERATE = join(ROOT, 'scripts', 'generate-client.js');
const DOCUMENT = join(ROOT, 'docs', 'openapi.json');
const run = promisify(execFile);

/**
 * The client's checked-in types against the checked-in OpenAPI document: a route changed
 * without `npm run client:generate` fails here. Until docs/openapi.json exists the same check
 * runs in test/e2e/typed-client.e2e.test.ts against the document the gateway serves.
 */
const withDocument = existsSync(DOCUMENT) ? describe : describe.skip;

withDocument('clients/typescript/src/schema.d.ts', () => {
  it('is what openapi-typescript generates from docs/openapi.json', async () => {
    await run(process.execPath, [GENERATE, '--check']);
  }, 60_000);

  it('the check fails on a document whose operation changed', async () => {
    const document = JSON.parse(readFileSync(DOCUMENT, 'utf8'));
    const [operations] = Object.values(document.paths) as Array<Record<string, object>>;
    const [method] = Object.keys(operations);
    operations[method] = { ...operations[method], summary: 'changed by the test' };
    const changed = join(mkdtempSync(join(tmpdir(), 'client-schema-')), 'openapi.json');
    writeFileSync(changed, JSON.stringify(document));
    await expect(run(process.execPath, [GENERATE, '--check', '--from', changed])).rejects.toThrow(
      /stale/,
    );
  }, 60_000);
});
