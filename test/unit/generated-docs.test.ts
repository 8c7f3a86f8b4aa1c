import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { configSchema } from '../../src/config';
import { CONFIG_SECTIONS, configurationMarkdown, envExampleText } from '../../src/config-docs';

const ROOT = join(__dirname, '..', '..');
const GENERATE = join(ROOT, 'scripts', 'generate-docs.js');
const GENERATED = ['docs/configuration.md', '.env.example', 'docs/api.md'];
const SECTIONS = CONFIG_SECTIONS;
// Each check builds the OpenAPI document and formats with Prettier in a child process.
jest.setTimeout(60_000);

/**
 * `npm run docs:generate --check` over the files under `root` (jest's global setup built dist/,
 * which the script reads, like the OpenAPI drift test): its exit code and what it printed.
 */
async function check(root = ROOT): Promise<{ code: number; stderr: string }> {
  try {
    await promisify(execFile)(process.execPath, [GENERATE, '--check', '--root', root]);
    return { code: 0, stderr: '' };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

/** A copy of the generated files in a scratch folder, with `edit` applied to one of them. */
function editedCopy(file: string, edit: (text: string) => string): string {
  const root = mkdtempSync(join(tmpdir(), 'generated-docs-'));
  mkdirSync(join(root, 'docs'));
  for (const name of GENERATED) copyFileSync(join(ROOT, name), join(root, name));
  const before = readFileSync(join(root, file), 'utf8');
  const after = edit(before);
  expect(after).not.toBe(before);
  writeFileSync(join(root, file), after);
  return root;
}

describe('the generated documentation', () => {
  it('is what the schema, the descriptions and the routes generate (else: npm run docs:generate)', async () => {
    expect(await check()).toEqual({ code: 0, stderr: '' });
  });

  it('fails on a hand edit of docs/configuration.md, naming the file and the line', async () => {
    const root = editedCopy('docs/configuration.md', (text) =>
      text.replace(/(\| `PORT` +\| )`4000`/, '$1`8080`'),
    );
    const { code, stderr } = await check(root);
    expect(code).toBe(1);
    expect(stderr).toMatch(/docs\/configuration\.md differs from what is generated at line \d+/);
    expect(stderr).toMatch(/generated: .*`4000`[\s\S]*in file: .*`8080`/);
  });

  it('fails on a hand edit of .env.example and of the tables in docs/api.md', async () => {
    const env = editedCopy('.env.example', (text) => text.replace('# PORT=4000', 'PORT=8080'));
    expect(await check(env)).toMatchObject({ code: 1, stderr: expect.stringMatching(/\.env/) });
    const api = editedCopy('docs/api.md', (text) =>
      text.replace('| Get one withdrawal ', '| Get a withdrawal  '),
    );
    expect(await check(api)).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/docs\/api\.md differs .*\n.*Get one withdrawal/),
    });
  });

  it('leaves the prose of docs/api.md to its authors, but not the markers', async () => {
    const prose = editedCopy('docs/api.md', (text) => text.replace('# API contract', '# API'));
    expect(await check(prose)).toEqual({ code: 0, stderr: '' });
    const lost = editedCopy('docs/api.md', (text) =>
      text.replace('<!-- /generated:routes -->', ''),
    );
    expect(await check(lost)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/lost its markers <!-- generated:routes/),
    });
  });
});

describe('the configuration documentation', () => {
  it('refuses a setting of the schema that has no description', () => {
    const schema = configSchema.extend({ NEW_SETTING: z.coerce.number().default(5) });
    expect(() => configurationMarkdown({ schema, sections: SECTIONS })).toThrow(
      /NEW_SETTING has no description/,
    );
  });

  it('refuses a description of a setting the schema no longer has', () => {
    const schema = configSchema.omit({ FEE_BPS: true });
    expect(() => envExampleText({ schema, sections: SECTIONS })).toThrow(
      /FEE_BPS is documented but not in configSchema/,
    );
  });

  it("follows the schema's defaults, so a changed default leaves the checked-in files stale", () => {
    const schema = configSchema.extend({ PORT: z.coerce.number().int().default(5000) });
    const markdown = configurationMarkdown({ schema, sections: SECTIONS });
    expect(markdown).toContain('| `PORT` | `5000` | integer | Gateway HTTP port. |');
    expect(envExampleText({ schema, sections: SECTIONS })).toContain('\n# PORT=5000\n');
    expect(readFileSync(join(ROOT, '.env.example'), 'utf8')).toContain('\n# PORT=4000\n');
  });

  it('does not let a description state a default the schema already has', () => {
    const sections = SECTIONS.map((section) =>
      section.fields.PORT
        ? { ...section, fields: { ...section.fields, PORT: { text: 'Port.', default: '80' } } }
        : section,
    );
    expect(() => configurationMarkdown({ schema: configSchema, sections })).toThrow(
      /PORT: the schema's default \(4000\) is the one documented/,
    );
  });
});
