'use strict';
// Loaded with NODE_OPTIONS=--require (which refuses --cpu-prof): profiles the whole process with
// the inspector and writes <BENCH_PROFILE_DIR>/<script>-<pid>.cpuprofile when it exits.
const { Session } = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { basename, join } = require('node:path');

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 500 });
  session.post('Profiler.start');
  process.once('exit', () => {
    session.post('Profiler.stop', (error, result) => {
      if (error) return;
      const name = basename(process.argv[1] ?? 'node', '.js');
      writeFileSync(join(dir, `${name}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
