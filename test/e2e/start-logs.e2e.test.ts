import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestChains, type TestChains } from '../support/chains';
import { createTestDatabase } from '../support/db';
import { sampleValue, scrape } from '../support/prometheus-text';
import { baseEnv, eventually } from '../support/stack';
import { bannerValue, startSupervisor, type Supervisor } from '../support/supervisor';

const REQUESTS = 2_000;
const IN_FLIGHT = 50;

/** The JSON lines of one of `npm start`'s log files (a torn last line is skipped). */
function logEntries(supervisor: Supervisor, name: string): Array<Record<string, unknown>> {
  const entries: Array<Record<string, unknown>> = [];
  for (const line of readFileSync(join(supervisor.dataDir, 'logs', `${name}.log`), 'utf8').split(
    '\n',
  )) {
    try {
      entries.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // the line being written, or not JSON
    }
  }
  return entries;
}

/** GETs `url` `count` times, `IN_FLIGHT` at a time; the request ids answered, in order. */
async function requestIds(url: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
      ids.push(response.headers.get('x-request-id')!);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return ids;
}

/**
 * Issue 39: `npm start` read each process's stdout through readline to find its start-up line
 * and then closed the reader, which paused the stream: the log files stopped a moment after
 * start-up while the processes kept their unwritten lines in memory. Here the supervisor runs
 * as a user starts it (its own project directory, the gateway and job runner as processes);
 * everything logged after start-up must reach `.data/logs/`.
 */
describe('npm start keeps writing the logs of its processes', () => {
  let chains: TestChains;
  let supervisor: Supervisor;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    chains = await startTestChains();
    supervisor = await startSupervisor(
      baseEnv(databaseUrl, {
        ...chains.env,
        PORT: '0',
        HOST: '127.0.0.1',
        INTERNAL_PORT: '0',
        INTERNAL_HOST: '127.0.0.1',
        // The job runner publishes a rate (and logs it) every second.
        RATE_INTERVAL_SECONDS: '1',
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await supervisor?.stop();
    await chains?.stop();
  });

  it(`writes a gateway line for each of ${REQUESTS} requests and the runner's job lines`, async () => {
    const health = bannerValue(supervisor.output(), 'Health');
    const sentAt = Date.now();
    const ids = await requestIds(health, REQUESTS);
    expect(new Set(ids).size).toBe(REQUESTS);

    // Lines are written in the background (at most LOG_FLUSH_MS late) and then copied by the
    // supervisor: wait for them, then say how many are missing.
    const missing = () => {
      const logged = new Set(logEntries(supervisor, 'gateway').map((entry) => entry.reqId));
      return ids.filter((id) => !logged.has(id));
    };
    const runnerLinesSince = () =>
      logEntries(supervisor, 'jobs').filter(
        (entry) => entry.msg === 'rates published' && Number(entry.time) >= sentAt,
      );
    await eventually(
      async () => (missing().length === 0 && runnerLinesSince().length >= 2 ? true : undefined),
      20_000,
      250,
    ).catch(() => undefined);

    const stillMissing = missing();
    expect({
      missing: stillMissing.length,
      first: stillMissing.slice(0, 3),
      // Jobs that ran after the requests began, each logged by the runner and copied to its file.
      runnerJobLines: runnerLinesSince().length >= 2,
    }).toEqual({ missing: 0, first: [], runnerJobLines: true });

    // Both processes count the lines they had to drop; read all along, they dropped none.
    const output = supervisor.output();
    const runnerMetrics = /(\S+\/metrics)\s+\(job runner\)/.exec(output)![1];
    for (const url of [bannerValue(output, 'Metrics'), runnerMetrics]) {
      expect(sampleValue(await scrape(url), 'onramp_log_lines_dropped_total')).toBe(0);
    }
  });
});
