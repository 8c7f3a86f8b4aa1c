#!/usr/bin/env node
'use strict';
// Compiles the typed client (clients/typescript/src) to CommonJS and declarations in
// clients/typescript/dist, so plain JavaScript (the README's quick start) can import it.
// tsc never copies a .d.ts source, so the generated schema.d.ts is copied beside the output.
const { execFileSync } = require('node:child_process');
const { copyFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const client = join(__dirname, '..', 'clients', 'typescript');
rmSync(join(client, 'dist'), { recursive: true, force: true });
execFileSync(
  process.execPath,
  [require.resolve('typescript/bin/tsc'), '-p', join(client, 'tsconfig.build.json')],
  { stdio: 'inherit' },
);
copyFileSync(join(client, 'src', 'schema.d.ts'), join(client, 'dist', 'schema.d.ts'));
process.stdout.write('clients/typescript/dist built\n');
