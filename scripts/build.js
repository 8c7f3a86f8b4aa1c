#!/usr/bin/env node
'use strict';
// Compiles src/ and jobs/ to dist/ with the TypeScript compiler (pure JavaScript tooling: no
// platform binaries, so `npm ci` works from the lock file on any machine).
const { execFileSync } = require('node:child_process');
const { rmSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
rmSync(join(root, 'dist'), { recursive: true, force: true });
execFileSync(
  process.execPath,
  [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
