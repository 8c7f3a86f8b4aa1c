import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const LINT = join(ROOT, 'scripts', 'lint-openapi.mjs');

/**
 * Redocly's linter (redocly.yaml: the recommended rules, some raised to errors) as CI runs it.
 * It is an ES module, so it runs in its own node process rather than in jest's runtime.
 */
function lint(file?: string) {
  const run = spawnSync(process.execPath, file ? [LINT, file] : [LINT], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const lines = run.stdout.trim().split('\n');
  return {
    status: run.status,
    lines,
    summary: JSON.parse(lines[lines.length - 1]) as { errors: number; warnings: number },
  };
}

describe('Redocly lint of docs/openapi.json', () => {
  it('reports no error', () => {
    const result = lint();
    expect(result.lines.filter((line) => line.startsWith('error'))).toEqual([]);
    expect(result.summary.errors).toBe(0);
    expect(result.status).toBe(0);
  });

  it('fails on an example that does not match its schema and on an unknown security scheme', () => {
    const document = JSON.parse(readFileSync(join(ROOT, 'docs', 'openapi.json'), 'utf8'));
    const rate = document.paths['/v1/rates'].get;
    rate.responses['200'].content['application/json'].example.rate = 'not a number';
    rate.security = [{ apiKey: [] }];
    const file = join(mkdtempSync(join(tmpdir(), 'openapi-lint-')), 'openapi.json');
    writeFileSync(file, JSON.stringify(document));

    const result = lint(file);
    expect(result.status).toBe(1);
    expect(result.lines.join('\n')).toMatch(/error no-invalid-media-type-examples .*v1~1rates/);
    expect(result.lines.join('\n')).toMatch(/error security-defined .*apiKey/);
  });
});
