#!/usr/bin/env node
'use strict';
// `npm run faults [-- --seeds N] [-- --seed S]`: the long fault run (issue 35), once per seed
// (N fresh seeds, or S), stopping at the first failure. It builds first, runs
// test/e2e/fault-run.e2e.test.ts with FAULT_RUN=full and prints each run's table of faults
// injected and checks made. Not a timed test: nothing here bounds how long a run takes.
const { spawnSync } = require('node:child_process');
const { randomInt } = require('node:crypto');
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const args = process.argv.slice(2);
const flagValue = (flag) => {
  const i = args.indexOf(flag);
  return i === -1 ? undefined : args[i + 1];
};
const seeds = flagValue('--seed')
  ? [Number(flagValue('--seed'))]
  : Array.from({ length: Number(flagValue('--seeds') ?? 1) }, () => randomInt(1, 2 ** 31));

const root = join(__dirname, '..');
const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const dir = mkdtempSync(join(tmpdir(), 'onramp-faults-'));
let failed = false;
for (const seed of seeds) {
  const reportFile = join(dir, `report-${seed}.json`);
  const run = spawnSync(
    process.execPath,
    [
      require.resolve('jest/bin/jest'),
      '--selectProjects',
      'e2e',
      '--runTestsByPath',
      'test/e2e/fault-run.e2e.test.ts',
    ],
    {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, FAULT_RUN: 'full', SEED: String(seed), FAULT_REPORT_FILE: reportFile },
    },
  );
  try {
    process.stdout.write(`\n${JSON.parse(readFileSync(reportFile, 'utf8')).table}\n\n`);
  } catch {
    process.stdout.write(`seed ${seed}: no report (the run did not finish)\n`);
  }
  if (run.status !== 0) {
    failed = true;
    process.stdout.write(`seed ${seed} FAILED; replay with: npm run faults -- --seed ${seed}\n`);
    break;
  }
}
rmSync(dir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
