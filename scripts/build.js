#!/usr/bin/env node
'use strict';
// Compiles src/ and jobs/ to dist/ with the TypeScript compiler (pure JavaScript tooling: no
// platform binaries, so `npm ci` works from the lock file on any machine), and the merchant
// dashboard (dashboard/: browser ES modules, its own tsconfig) to dist/dashboard/. Builds into a
// temporary folder and swaps it in, so processes started from dist/ by a concurrent run never
// find it half-written or missing.
const { execFileSync } = require('node:child_process');
const { copyFileSync, mkdirSync, renameSync, rmSync } = require('node:fs');
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
  buildDashboard(join(staging, 'dashboard'));
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

/** dashboard/src/*.ts -> <out>/assets/*.js, plus index.html and assets/styles.css. */
function buildDashboard(out) {
  const assets = join(out, 'assets');
  mkdirSync(assets, { recursive: true });
  execFileSync(
    process.execPath,
    [
      require.resolve('typescript/bin/tsc'),
      '-p',
      join('dashboard', 'tsconfig.json'),
      '--outDir',
      assets,
    ],
    { cwd: root, stdio: 'inherit' },
  );
  copyFileSync(join(root, 'dashboard', 'index.html'), join(out, 'index.html'));
  copyFileSync(join(root, 'dashboard', 'styles.css'), join(assets, 'styles.css'));
}
