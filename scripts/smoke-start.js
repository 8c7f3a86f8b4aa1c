#!/usr/bin/env node
// CI's smoke test of the README's start command on a Node that does not run the whole suite:
// `npm start` (build, embedded PostgreSQL, local chains, gateway and job runner) must answer
// `GET /health` with the database up, then stop cleanly on SIGINT, as Ctrl-C would.
'use strict';
const { spawn } = require('node:child_process');

const HEALTH_URL = `http://127.0.0.1:${process.env.PORT ?? 4000}/health`;
const START_LIMIT_MS = 300_000;
const STOP_LIMIT_MS = 60_000;

const child = spawn('npm', ['start'], { stdio: ['ignore', 'inherit', 'inherit'], detached: true });
const exited = new Promise((resolve) =>
  child.once('exit', (code, signal) => resolve({ code, signal })),
);

async function healthy() {
  try {
    const response = await fetch(HEALTH_URL, { signal: AbortSignal.timeout(5_000) });
    const body = await response.json();
    return response.status === 200 && body.database === 'ok' ? body : undefined;
  } catch {
    return undefined;
  }
}

async function main() {
  const started = Date.now();
  let health;
  while (!(health = await healthy())) {
    const done = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 1_000))]);
    if (done) throw new Error(`npm start exited before answering: ${JSON.stringify(done)}`);
    if (Date.now() - started > START_LIMIT_MS) throw new Error('npm start did not answer /health');
  }
  console.log(`smoke: /health answered ${JSON.stringify(health)} after ${Date.now() - started} ms`);
  const stopping = Date.now();
  process.kill(-child.pid, 'SIGINT');
  const stop = await Promise.race([
    exited,
    new Promise((r) => setTimeout(() => r(null), STOP_LIMIT_MS)),
  ]);
  if (!stop) throw new Error('npm start did not stop within 60 s of SIGINT');
  console.log(`smoke: npm start stopped (${JSON.stringify(stop)}) in ${Date.now() - stopping} ms`);
  process.exit(0); // not waiting for the stop limit's timer
}

main().catch((error) => {
  console.error(`smoke: ${error.message}`);
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
  process.exit(1);
});
