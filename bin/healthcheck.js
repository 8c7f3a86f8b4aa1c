#!/usr/bin/env node
'use strict';
// The image's HEALTHCHECK, for whichever process the container runs: the gateway answers on
// PORT, the job runner on JOBS_PORT, and only one of them listens in a container, so the first
// port that answers 200 decides. `livez` (the default, and the Dockerfile's): the process
// answers, whatever the database does, so an orchestrator that restarts unhealthy containers
// never restarts them all on a database blip. `readyz`: it can work now (for a depends_on that
// must wait for a working service). docs/cli.md, "Probes".
const probe = process.argv[2] ?? 'livez';
if (probe !== 'livez' && probe !== 'readyz') {
  process.stderr.write('usage: node bin/healthcheck.js [livez|readyz]\n');
  process.exit(2);
}
const host = ['0.0.0.0', '::', undefined].includes(process.env.HOST)
  ? '127.0.0.1'
  : process.env.HOST.includes(':')
    ? `[${process.env.HOST}]`
    : process.env.HOST;
const ports = [process.env.PORT || '4000', process.env.JOBS_PORT || '4001'];

async function answers(port) {
  try {
    const response = await fetch(`http://${host}:${port}/${probe}`, {
      signal: AbortSignal.timeout(3_000),
    });
    return response.status === 200;
  } catch {
    return false;
  }
}

Promise.all(ports.map(answers)).then((results) => process.exit(results.includes(true) ? 0 : 1));
