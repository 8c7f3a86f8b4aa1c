'use strict';
// A process that logs as the gateway and the job runner do (dist/src/logger.js: serviceLogger,
// the background writer, its drop counter on a Prometheus registry) far faster than anyone
// reads its standard output. Driven over IPC by test/integration/stalled-log-reader.test.ts:
//   {flood: lines}  logs that many ~300-byte lines, yielding between bursts as a server would,
//                   then answers {flooded} with its memory (after a full GC) and drop counts;
//   {finish: true}  answers {finishing}; once the parent reads again and every line still
//                   waiting is written, exits.
// Run with --expose-gc, so that "memory" is what the process holds, not garbage.
const { join } = require('node:path');
const { Registry } = require('prom-client');

const dist = join(__dirname, '..', '..', 'dist', 'src');
const { serviceLogger } = require(join(dist, 'logger.js'));
const { registerLogMetrics } = require(join(dist, 'metrics', 'logs.js'));

const { log, output } = serviceLogger('flood', {
  LOG_LEVEL: 'info',
  LOG_SYNC: false,
  LOG_BUFFER_MAX_BYTES: Number(process.env.LOG_BUFFER_MAX_BYTES),
});
const registry = new Registry();
registerLogMetrics(registry, output);
const PAD = 'x'.repeat(200);
const BURST = 1000;

async function memory() {
  global.gc();
  const { rss, heapUsed } = process.memoryUsage();
  const metric = /^onramp_log_lines_dropped_total (\d+)$/m.exec(await registry.metrics());
  return { rss, heapUsed, dropped: output.droppedLines(), metric: metric ? Number(metric[1]) : -1 };
}

function flood(lines) {
  let logged = 0;
  const burst = () => {
    for (let k = 0; k < BURST && logged < lines; k += 1) {
      log.info({ seq: logged, pad: PAD }, 'flood line');
      logged += 1;
    }
    if (logged < lines) setImmediate(burst);
    else void memory().then((m) => process.send({ flooded: lines, ...m }));
  };
  burst();
}

process.on('message', (message) => {
  if (message.flood) flood(message.flood);
  if (message.finish) {
    // Once the parent reads again and all that waited is written (`drain`; the drop report
    // is logged then), exit: pino's exit hook writes the rest synchronously.
    output.stream.once('drain', () => setImmediate(() => process.exit(0)));
    process.send({ finishing: true });
  }
});
void memory().then((m) => process.send({ baseline: true, ...m }));
