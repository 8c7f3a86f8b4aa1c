#!/usr/bin/env node
'use strict';
// Writes schema.graphql from the type-graphql schema (built output in dist/).
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { execFileSync } = require('node:child_process');

const root = join(__dirname, '..');
execFileSync(process.execPath, [join(__dirname, 'build.js')], { cwd: root, stdio: 'inherit' });
const { buildGraphQLSchema, printSchemaFile } = require(
  join(root, 'dist', 'src', 'api', 'graphql', 'schema.js'),
);
buildGraphQLSchema().then((schema) => {
  writeFileSync(join(root, 'schema.graphql'), printSchemaFile(schema));
  process.stdout.write('schema.graphql written\n');
});
