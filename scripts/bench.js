#!/usr/bin/env node
'use strict';
// `npm run bench [-- name...]`: builds the service and the benchmarks into dist/ (dist/bench),
// then runs bench/run.ts's compiled form. Benchmarks are not tests: they never run in CI.
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
execFileSync(process.execPath, [join(root, 'scripts', 'build.js')], {
  cwd: root,
  stdio: 'inherit',
});
execFileSync(
  process.execPath,
  [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.bench.json'],
  { cwd: root, stdio: 'inherit' },
);
execFileSync(process.execPath, [join(root, 'dist', 'bench', 'run.js'), ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
});
