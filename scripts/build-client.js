#!/usr/bin/env node
'use strict';
// Builds the typed client (clients/typescript/src) into clients/typescript/dist, as its
// package.json's `exports` map names them: an ES module (index.mjs) and CommonJS (index.cjs),
// each one bundle of the client's own code by esbuild with its dependencies left as imports,
// and the declarations by tsc (index.d.ts and its neighbours; tsc never copies a .d.ts source,
// so the generated schema.d.ts is copied beside them). Run by `npm run client:build` and by
// the client's `prepack`, so `npm pack` and `npm publish` always ship a fresh build.
const { execFileSync } = require('node:child_process');
const { copyFileSync, readFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const esbuild = require('esbuild');

const client = join(__dirname, '..', 'clients', 'typescript');
const manifest = JSON.parse(readFileSync(join(client, 'package.json'), 'utf8'));
rmSync(join(client, 'dist'), { recursive: true, force: true });

const common = {
  entryPoints: [join(client, 'src', 'index.ts')],
  bundle: true,
  platform: 'neutral',
  target: 'es2022',
  external: Object.keys(manifest.dependencies),
  logLevel: 'warning',
};
esbuild.buildSync({ ...common, format: 'esm', outfile: join(client, 'dist', 'index.mjs') });
esbuild.buildSync({ ...common, format: 'cjs', outfile: join(client, 'dist', 'index.cjs') });

execFileSync(
  process.execPath,
  [require.resolve('typescript/bin/tsc'), '-p', join(client, 'tsconfig.build.json')],
  { stdio: 'inherit' },
);
copyFileSync(join(client, 'src', 'schema.d.ts'), join(client, 'dist', 'schema.d.ts'));
process.stdout.write('clients/typescript/dist built (index.mjs, index.cjs, index.d.ts)\n');
