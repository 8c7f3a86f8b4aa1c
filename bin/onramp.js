#!/usr/bin/env node
'use strict';
// The operator command line. Built output lives in dist/; build it first when missing.
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { execFileSync } = require('node:child_process');

const root = join(__dirname, '..');
const entry = join(root, 'dist', 'src', 'cli', 'onramp.js');
if (!existsSync(entry)) {
  execFileSync(process.execPath, [join(root, 'scripts', 'build.js')], {
    cwd: root,
    stdio: 'inherit',
  });
}
require(entry)
  .runCli(process.argv.slice(2))
  .then((code) => process.exit(code));
