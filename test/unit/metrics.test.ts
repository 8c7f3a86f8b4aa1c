import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { DEPOSIT_STATUSES } from '../../src/domain/deposit-state-machine';
import { createGatewayMetrics } from '../../src/metrics/gateway-metrics';
import { parsePrometheusText, sampleValue } from '../support/prometheus-text';
import { database, fakeOrm, quietLog } from '../support/metrics-fixtures';

/**
 * The gateway's registry renders text a strict Prometheus parser accepts, with the metrics docs/operations.md
 * names. The database behind the scrape-time gauges is a stand-in here (the e2e suite scrapes
 * real processes over a real database): one that answers, one that fails, one that hangs.
 */

/** Every registry made here, so their deposit timers stop after the run. */
const created: Array<{ close(): void }> = [];
afterAll(() => created.forEach((metrics) => metrics.close()));

function gatewayMetrics(orm: MikroORM, log: Logger) {
  const metrics = createGatewayMetrics({ orm, log });
  created.push(metrics);
  return metrics;
}

describe('gateway metrics', () => {
  it('render as Prometheus text with request latency by route pattern, deposits and sockets', async () => {
    const { log } = quietLog();
    const metrics = gatewayMetrics(fakeOrm(database), log);
    await metrics.refreshDeposits();
    metrics.observeRequest('GET', '/v1/deposits/:id', 200, 0.004);
    metrics.observeRequest('GET', '/v1/deposits/:id', 200, 0.03);
    metrics.observeRequest('GET', undefined, 404, 0.001);
    metrics.countWebSockets(() => 3);

    const parsed = parsePrometheusText(await metrics.registry.metrics());
    expect(parsed.get('onramp_http_request_duration_seconds')?.type).toBe('histogram');
    const route = { method: 'GET', route: '/v1/deposits/:id', status_code: '200' };
    expect(sampleValue(parsed, 'onramp_http_request_duration_seconds_count', route)).toBe(2);
    expect(
      sampleValue(parsed, 'onramp_http_request_duration_seconds_bucket', { ...route, le: '0.005' }),
    ).toBe(1);
    expect(
      sampleValue(parsed, 'onramp_http_request_duration_seconds_count', { route: 'unmatched' }),
    ).toBe(1);
    expect(sampleValue(parsed, 'onramp_deposits', { status: 'SETTLED' })).toBe(7);
    expect(sampleValue(parsed, 'onramp_deposits', { status: 'PENDING_FX' })).toBe(2);
    for (const status of DEPOSIT_STATUSES) {
      expect(sampleValue(parsed, 'onramp_deposits', { status })).toBeGreaterThanOrEqual(0);
    }
    expect(sampleValue(parsed, 'onramp_graphql_ws_connections')).toBe(3);
    // Process defaults, under their standard names (no prefix); everything else is the service's.
    expect(parsed.get('process_resident_memory_bytes')?.type).toBe('gauge');
    expect(sampleValue(parsed, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(parsed.get('process_cpu_seconds_total')?.type).toBe('counter');
    expect(parsed.get('nodejs_heap_size_used_bytes')?.type).toBe('gauge');
    expect([...parsed.keys()].filter((name) => name.startsWith('onramp_process_'))).toEqual([]);
    for (const name of parsed.keys()) expect(name).toMatch(/^(onramp|process|nodejs)_/);
  });

  it('still answers when the database fails: the deposits gauge is left out, with a warning', async () => {
    const { log, warn } = quietLog();
    const metrics = gatewayMetrics(
      fakeOrm(() => Promise.reject(new Error('connect ECONNREFUSED'))),
      log,
    );
    await metrics.refreshDeposits();
    const parsed = parsePrometheusText(await metrics.registry.metrics());
    expect(parsed.get('onramp_deposits')?.samples).toEqual([]);
    expect(sampleValue(parsed, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ metric: 'onramp_deposits' }),
      expect.stringContaining('database unavailable'),
    );
  });

  it('counts deposits on its timer, never per scrape: parallel scrapes read memory', async () => {
    const { log } = quietLog();
    let counts = 0;
    let settled = 7;
    const orm = fakeOrm((sql) => {
      if (!sql.includes('from deposits')) return database(sql);
      counts += 1;
      return [{ status: 'SETTLED', count: String(settled) }];
    });
    const metrics = gatewayMetrics(orm, log);
    await metrics.refreshDeposits();
    expect(counts).toBe(1);
    settled = 8;
    const scrapes = await Promise.all(
      Array.from({ length: 10 }, async () => parsePrometheusText(await metrics.registry.metrics())),
    );
    expect(counts).toBe(1);
    for (const parsed of scrapes) {
      expect(sampleValue(parsed, 'onramp_deposits', { status: 'SETTLED' })).toBe(7);
    }
    await metrics.refreshDeposits();
    const after = parsePrometheusText(await metrics.registry.metrics());
    expect(sampleValue(after, 'onramp_deposits', { status: 'SETTLED' })).toBe(8);
  });

  it('the timer counts again on its own', async () => {
    const { log } = quietLog();
    let counts = 0;
    const orm = fakeOrm((sql) => {
      if (sql.includes('from deposits')) counts += 1;
      return database(sql);
    });
    const metrics = createGatewayMetrics({ orm, log, depositsRefreshMs: 50 });
    created.push(metrics);
    await new Promise((r) => setTimeout(r, 400));
    expect(counts).toBeGreaterThanOrEqual(3);
    metrics.close();
    const stopped = counts;
    await new Promise((r) => setTimeout(r, 200));
    expect(counts).toBe(stopped);
  });

  it('does not wait for a database that does not answer', async () => {
    const { log } = quietLog();
    const metrics = gatewayMetrics(
      fakeOrm(() => new Promise(() => {})),
      log,
    );
    const started = performance.now();
    const parsed = parsePrometheusText(await metrics.registry.metrics());
    expect(performance.now() - started).toBeLessThan(3_500);
    expect(parsed.get('onramp_deposits')?.samples).toEqual([]);
  });
});

describe('the Prometheus text parser', () => {
  const ok = [
    '# HELP a_total Things.',
    '# TYPE a_total counter',
    'a_total{kind="x\\"y",other="\\\\"} 3',
    '# HELP h Latency.',
    '# TYPE h histogram',
    'h_bucket{le="0.1"} 1',
    'h_bucket{le="+Inf"} 2',
    'h_sum 0.3',
    'h_count 2',
    '',
  ].join('\n');

  it('reads families, labels (with escapes) and values', () => {
    const parsed = parsePrometheusText(ok);
    expect(parsed.get('a_total')?.samples).toEqual([
      { name: 'a_total', labels: { kind: 'x"y', other: '\\' }, value: 3 },
    ]);
    expect(sampleValue(parsed, 'h_count')).toBe(2);
  });

  it.each([
    ['a sample without TYPE', 'x 1\n'],
    ['a family without HELP', '# TYPE x gauge\nx 1\n'],
    ['a value that is not a number', '# HELP x X.\n# TYPE x gauge\nx one\n'],
    ['an unquoted label', '# HELP x X.\n# TYPE x gauge\nx{a=1} 1\n'],
    ['a missing value', '# HELP x X.\n# TYPE x gauge\nx{a="1"}\n'],
    ['a second TYPE', '# HELP x X.\n# TYPE x gauge\n# TYPE x gauge\n'],
    ['a histogram without +Inf', ok.replace('h_bucket{le="+Inf"} 2\n', '')],
    ['+Inf differing from _count', ok.replace('h_count 2', 'h_count 5')],
    ['buckets that decrease', ok.replace('h_bucket{le="0.1"} 1', 'h_bucket{le="0.1"} 9')],
  ])('rejects %s', (_what, text) => {
    expect(() => parsePrometheusText(text)).toThrow();
  });
});
