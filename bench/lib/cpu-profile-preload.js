'use strict';
// Loaded with NODE_OPTIONS=--require (which refuses --cpu-prof): profiles the whole process with
// the inspector and writes <BENCH_PROFILE_DIR>/<script>-<pid>.cpuprofile when it exits.
// SIGUSR2 cuts the profile at a phase boundary: what was sampled since the last cut is written to
// <script>-<pid>-<label>.cpuprofile (label: the text of <BENCH_PROFILE_DIR>/segment-label, set
// by the benchmark just before it signals) and sampling starts afresh.
const { Session } = require('node:inspector');
const { readFileSync, writeFileSync } = require('node:fs');
const { basename, join } = require('node:path');

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 500 });
  session.post('Profiler.start');
  const name = basename(process.argv[1] ?? 'node', '.js');
  const write = (suffix, then) =>
    session.post('Profiler.stop', (error, result) => {
      if (!error) {
        writeFileSync(
          join(dir, `${name}-${process.pid}${suffix}.cpuprofile`),
          JSON.stringify(result.profile),
        );
      }
      if (then) then();
    });
  process.on('SIGUSR2', () => {
    let label = 'segment';
    try {
      label = readFileSync(join(dir, 'segment-label'), 'utf8')
        .trim()
        .replace(/[^\w.-]/g, '_');
    } catch {
      // no label file: a generic name
    }
    write(`-${label}`, () => session.post('Profiler.start'));
  });
  process.once('exit', () => write(''));
}
