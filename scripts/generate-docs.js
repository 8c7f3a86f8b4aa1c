#!/usr/bin/env node
'use strict';
// Writes the documentation that is a fact of the code (built output in dist/):
//   docs/configuration.md and .env.example  from the configuration schema (src/config-docs.ts);
//   docs/api.md's route and webhook-event tables  from the OpenAPI document the routes generate.
// With --check, builds nothing and writes nothing: exits 1 naming each file (and its first
// differing line) that a hand edit or a schema change left different from what is generated.
// --root DIR checks the files under DIR instead (the drift test's edited copies).
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { execFileSync } = require('node:child_process');

const root = join(__dirname, '..');
const check = process.argv.includes('--check');
const rootArg = process.argv.indexOf('--root');
const target = rootArg > 0 ? process.argv[rootArg + 1] : root;

const begin = (name) => `<!-- generated:${name} (npm run docs:generate) -->`;
const end = (name) => `<!-- /generated:${name} -->`;

/** `text` with each marked section replaced; a missing marker is an error naming it. */
function withSections(text, sections, file) {
  let result = text;
  for (const [name, body] of Object.entries(sections)) {
    const from = result.indexOf(begin(name));
    const to = result.indexOf(end(name));
    if (from < 0 || to < from) throw new Error(`${file} lost its markers ${begin(name)}`);
    result = `${result.slice(0, from)}${begin(name)}\n\n${body}\n\n${result.slice(to)}`;
  }
  return result;
}

async function generated(dir) {
  const prettier = require('prettier');
  const options = {
    ...(await prettier.resolveConfig(join(root, 'README.md'))),
    parser: 'markdown',
  };
  const dist = join(root, 'dist', 'src');
  const { configurationMarkdown, envExampleText } = require(join(dist, 'config-docs.js'));
  const { routesTable, eventsTable } = require(join(dist, 'api', 'openapi', 'api-tables.js'));
  const { buildOpenApiDocument } = require(join(dist, 'api', 'openapi', 'openapi-document.js'));
  const { VERSION } = require(join(dist, 'version.js'));
  const document = await buildOpenApiDocument(VERSION);
  const api = readFileSync(join(dir, 'docs', 'api.md'), 'utf8');
  const sections = { routes: routesTable(document), 'webhook-events': eventsTable(document) };
  return {
    'docs/configuration.md': await prettier.format(configurationMarkdown(), options),
    '.env.example': envExampleText(),
    'docs/api.md': await prettier.format(withSections(api, sections, 'docs/api.md'), options),
  };
}

/** Where `actual` first differs from `expected`, or null when they are equal. */
function drift(file, expected, actual) {
  if (expected === actual) return null;
  const want = expected.split('\n');
  const have = actual.split('\n');
  let line = 0;
  while (line < want.length && want[line] === have[line]) line += 1;
  return (
    `${file} differs from what is generated at line ${line + 1}:\n` +
    `    generated: ${JSON.stringify(want[line] ?? '<end of file>')}\n` +
    `    in file:   ${JSON.stringify(have[line] ?? '<end of file>')}`
  );
}

async function main() {
  if (!check) {
    execFileSync(process.execPath, [join(__dirname, 'build.js')], { cwd: root, stdio: 'inherit' });
  }
  const files = await generated(target);
  if (check) {
    const problems = Object.entries(files)
      .map(([file, text]) => drift(file, text, readFileSync(join(target, file), 'utf8')))
      .filter(Boolean);
    if (problems.length === 0) return;
    process.stderr.write(
      `${problems.join('\n')}\nThese files are generated: change src/config-docs-*.ts, the ` +
        'config schema or the routes, then run `npm run docs:generate`.\n',
    );
    process.exitCode = 1;
    return;
  }
  for (const [file, text] of Object.entries(files)) writeFileSync(join(root, file), text);
  process.stdout.write(`${Object.keys(files).join(', ')} written\n`);
}

main().catch((error) => {
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 2;
});
