#!/usr/bin/env node
'use strict';
// The operator command line. Built output lives in dist/; build it first when missing.
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { execFileSync } = require('node:child_process');

// Node 22.1 and later keep V8's compiled code of every module loaded below on disk (in the
// temporary directory): a command that reads the database loads the ORM, pg and viem, and
// compiles them again on every call without it. Node 20 has no such cache and skips this.
require('node:module').enableCompileCache?.();

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
