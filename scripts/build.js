#!/usr/bin/env node
'use strict';
// Compiles src/ and jobs/ to dist/ with swc (type checking is `npm run typecheck`).
const { execFileSync } = require('node:child_process');
const { rmSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
rmSync(join(root, 'dist'), { recursive: true, force: true });
execFileSync(
  process.execPath,
  [
    require.resolve('@swc/cli/bin/swc.js'),
    'src',
    'jobs',
    '-d',
    'dist',
    '--config-file',
    '.swcrc',
    '--quiet',
  ],
  { cwd: root, stdio: 'inherit' },
);
