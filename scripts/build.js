#!/usr/bin/env node
'use strict';
// Compiles src/ and jobs/ to dist/ with the TypeScript compiler (pure JavaScript tooling: no
// platform binaries, so `npm ci` works from the lock file on any machine). Builds into a
// temporary folder and swaps it in, so processes started from dist/ by a concurrent run never
// find it half-written or missing.
const { execFileSync } = require('node:child_process');
const { renameSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const staging = join(root, `.dist-build-${process.pid}`);
const retired = join(root, `.dist-old-${process.pid}`);
try {
  execFileSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', staging],
    { cwd: root, stdio: 'inherit' },
  );
  try {
    renameSync(join(root, 'dist'), retired);
  } catch {
    // no previous build
  }
  renameSync(staging, join(root, 'dist'));
} finally {
  rmSync(staging, { recursive: true, force: true });
  rmSync(retired, { recursive: true, force: true });
}
