#!/usr/bin/env node
'use strict';
// Writes docs/openapi.json from the gateway's routes (built output in dist/). With --print,
// prints the document instead and does not build (the drift test runs it after jest's build).
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { execFileSync } = require('node:child_process');

const root = join(__dirname, '..');
const print = process.argv.includes('--print');
if (!print) {
  execFileSync(process.execPath, [join(__dirname, 'build.js')], { cwd: root, stdio: 'inherit' });
}
const dist = join(root, 'dist', 'src');
const { buildOpenApiDocument } = require(join(dist, 'api', 'openapi', 'openapi-document.js'));
const { openApiFileText } = require(join(dist, 'api', 'openapi', 'openapi-file.js'));
const { VERSION } = require(join(dist, 'version.js'));
buildOpenApiDocument(VERSION).then((document) => {
  const text = openApiFileText(document);
  if (print) return process.stdout.write(text);
  writeFileSync(join(root, 'docs', 'openapi.json'), text);
  process.stdout.write('docs/openapi.json written\n');
});
