/**
 * 1,000 graphql-ws subscribers to one merchant's `depositUpdated`, held by two client
 * processes, while deposits change status at a steady rate. Latency of a message = the
 * client's receive time minus the change's `updatedAt` (the deposit's updated_at, set by the
 * service's clock when it made the change; same machine, same clock). Baseline: the same
 * client processes and sockets on a bare `ws` broadcaster (no database, no GraphQL) sending
 * messages of the same size at the same rate.
 */
import { join } from 'node:path';
import { Client } from 'pg';
import type { Benchmark } from './benchmarks';
import { allSettled, depositLoad, gatewayCpuWithoutSubscribers } from './lib/subscription-deposits';
import type { Row } from './lib/results';
import { startBenchStack } from './lib/stack';
import { api, pause, permanentOnramp, QUICK, untilTrue } from './lib/ws-api';
import { percentile, round } from './lib/stats';
import { backgroundLoad, cpuMs, forkRpc, machineCpuMs, type RpcChild } from './lib/ws-rpc';
import { sampleLockWaits } from './lib/lock-waits';
import { collect } from './lib/subscriber-reports';

const SUBSCRIBERS = 1000;
const CLIENT_PROCESSES = 2;
/** Deposits per second; each makes two status changes (PENDING_FX, then SETTLED). */
const DEPOSITS_PER_SECOND = 20;
const LOAD_MS = QUICK ? 3_000 : 10_000;
/** PERMANENT onramps the deposits are spread over. */
const ONRAMPS = 20;
const QUERY = 'subscription { depositUpdated { depositId status updatedAt } }';
const NAME = 'subscriptions';

const everyClient = <T>(clients: RpcChild[], command: { type: string } & Record<string, unknown>) =>
  Promise.all(clients.map((c) => c.call<T>(command)));

async function connectAll(clients: RpcChild[], url: string, authorization?: string) {
  const counts = await everyClient<number>(clients, {
    type: 'connect',
    url,
    count: SUBSCRIBERS / clients.length,
    authorization,
    query: QUERY,
    parallel: 25,
  });
  const total = counts.reduce((a, b) => a + b, 0);
  if (total !== SUBSCRIBERS) throw new Error(`${total} of ${SUBSCRIBERS} subscribers connected`);
}

/** The service: real gateway and job runner, deposits through the API. */
async function measureService(clients: RpcChild[]) {
  const bench = await startBenchStack();
  const db = new Client({ connectionString: bench.databaseUrl });
  await db.connect();
  try {
    const { url } = bench.stack;
    const key = bench.merchant.api_key;
    const merchantId = bench.merchant.merchant_id;
    // Transfers into one account serialise on its onramp row: the deposits go to several
    // PERMANENT onramps of the merchant (its users), as real traffic would.
    const accounts: string[] = [];
    for (let i = 0; i < ONRAMPS; i += 1) accounts.push(await permanentOnramp(url, key));
    const account = accounts[0];
    // First the same traffic with nobody subscribed: the gateway's CPU that is not fan-out.
    const alone = await gatewayCpuWithoutSubscribers(
      bench.stack.gateways[0].child.pid,
      db,
      { url, key, merchantId, accounts },
      { durationMs: LOAD_MS, rate: DEPOSITS_PER_SECOND },
    );
    const connectStarted = Date.now();
    await connectAll(clients, `${url.replace(/^http/, 'ws')}/graphql`, `Bearer ${key}`);
    const connectMs = Date.now() - connectStarted;

    // Subscriptions register asynchronously: a deposit every subscriber saw proves them all in.
    const warm = await api(url, key, 'POST', '/v1/sandbox/deposits', {
      account_number: account,
      amount_ngn: '15000',
      bank_reference: 'bench-sub-warm',
    });
    if (warm.status !== 201) throw new Error(`warm-up deposit: ${JSON.stringify(warm)}`);
    const warmed = await everyClient<boolean>(clients, {
      type: 'waitFor',
      key: `${String(warm.body.deposit_id)}:SETTLED`,
      timeoutMs: 30_000,
    });
    if (!warmed.every(Boolean)) throw new Error('not every subscriber saw the warm-up deposit');
    await everyClient(clients, { type: 'reset' });
    const [{ top }] = (
      await db.query<{ top: string }>('select coalesce(max(seq), 0)::text as top from events')
    ).rows;
    const cpuNow = () => ({
      gateway: cpuMs(bench.stack.gateways[0].child.pid),
      runner: cpuMs(bench.stack.runners[0].child.pid),
      clients: clients.reduce((sum, c) => sum + cpuMs(c.child.pid), 0),
      machine: machineCpuMs(),
    });
    const cpuBefore = cpuNow();
    const windowStarted = Date.now();

    // Meanwhile: how often the database has sessions waiting on a lock, and on what.
    const locks = sampleLockWaits(bench.databaseUrl);
    const load = await depositLoad(url, key, accounts, 'bench-sub-{{n}}', {
      durationMs: LOAD_MS,
      rate: DEPOSITS_PER_SECOND,
    });
    const lockWaits = await locks.stop();
    const settled = await allSettled(db, merchantId, 30_000);
    const [{ expected }] = (
      await db.query<{ expected: number }>(
        `select count(*)::int as expected from events
          where merchant_id = $1 and deposit_id is not null and seq > $2`,
        [merchantId, top],
      )
    ).rows;
    await everyClient(clients, { type: 'waitForCount', count: expected, timeoutMs: 15_000 });
    const cpuAfter = cpuNow();
    const windowMs = Date.now() - windowStarted;
    await pause(500); // room for a duplicate to show up
    const fanOut = await collect(clients, expected);
    await everyClient(clients, { type: 'close' });
    const cpu = {
      gateway: cpuAfter.gateway - cpuBefore.gateway,
      runner: cpuAfter.runner - cpuBefore.runner,
      clients: cpuAfter.clients - cpuBefore.clients,
      // Of all cores: how busy the whole machine was (the other processes included).
      machineBusy:
        (cpuAfter.machine.busy - cpuBefore.machine.busy) /
        (cpuAfter.machine.total - cpuBefore.machine.total),
      windowMs,
    };
    return { fanOut, expected, load, settled, connectMs, cpu, lockWaits, alone };
  } finally {
    await db.end();
    await bench.stop();
  }
}

/** The baseline: the same clients on a bare ws broadcaster, same rate, same message size. */
async function measureBaseline(clients: RpcChild[], expected: number, sample: string | null) {
  const broadcaster = forkRpc(join(__dirname, 'lib', 'ws-broadcaster.js'));
  try {
    const port = await broadcaster.call<number>({ type: 'listen' });
    await connectAll(clients, `ws://127.0.0.1:${port}/graphql`);
    await untilTrue(
      async () => (await broadcaster.call<number>({ type: 'subscribers' })) === SUBSCRIBERS,
      10_000,
    );
    // The gateway's message, as received: the bare one gets the same size.
    const real = sample ? Buffer.byteLength(sample) : 0;
    let idLength = sample
      ? String((JSON.parse(sample).payload.data.depositUpdated as { depositId: string }).depositId)
          .length
      : 30;
    const bare = Buffer.byteLength(
      JSON.stringify({
        id: '1',
        type: 'next',
        payload: {
          data: {
            depositUpdated: {
              depositId: 'x'.repeat(idLength),
              status: 'PENDING_FX',
              updatedAt: new Date().toISOString(),
            },
          },
        },
      }),
    );
    // A few bytes short: a longer id; more: a `pad` field (`,"pad":""` is 9 characters).
    const short = real - bare;
    const pad = short > 9 ? short - 9 : 0;
    if (short > 0 && short <= 9) idLength += short;
    const warm = { type: 'broadcast', rate: 10, count: 2, idLength, pad };
    await broadcaster.call({ ...warm, prefix: 'dep_warm' });
    const warmed = await everyClient<boolean>(clients, {
      type: 'waitFor',
      key: `dep_warm${'0'.repeat(idLength - 8)}:SETTLED`,
      timeoutMs: 10_000,
    });
    if (!warmed.every(Boolean)) throw new Error('not every bare subscriber saw the warm-up');
    await everyClient(clients, { type: 'reset' });
    const cpuBefore = cpuMs(broadcaster.child.pid);
    const clientsBefore = clients.reduce((sum, c) => sum + cpuMs(c.child.pid), 0);
    const sent = await broadcaster.call<{ sent: number; bytes: number }>({
      type: 'broadcast',
      rate: DEPOSITS_PER_SECOND * 2,
      count: expected,
      prefix: 'dep_bare',
      idLength,
      pad,
    });
    await everyClient(clients, { type: 'waitForCount', count: expected, timeoutMs: 15_000 });
    const cpu = {
      server: cpuMs(broadcaster.child.pid) - cpuBefore,
      clients: clients.reduce((sum, c) => sum + cpuMs(c.child.pid), 0) - clientsBefore,
    };
    await pause(500);
    const fanOut = await collect(clients, expected);
    await everyClient(clients, { type: 'close' });
    return { fanOut, bytes: sent.bytes, realBytes: real, cpu };
  } finally {
    await broadcaster.call({ type: 'close' }).catch(() => undefined);
    await broadcaster.stop();
  }
}

async function run(): Promise<Row[]> {
  const clients = Array.from({ length: CLIENT_PROCESSES }, () =>
    forkRpc(join(__dirname, 'lib', 'ws-subscribers.js')),
  );
  try {
    const background = await backgroundLoad();
    const service = await measureService(clients);
    const baseline = await measureBaseline(clients, service.expected, service.fanOut.sample);
    const s = service.fanOut;
    const b = baseline.fanOut;
    const created = service.load.statuses['201'] ?? 0;
    const messages = Math.max(1, s.latencies.length);
    const gatewayUs = (service.cpu.gateway * 1000) / messages;
    // The same traffic's CPU without subscribers, taken out: what is left is the fan-out's.
    const fanOutUs =
      ((service.cpu.gateway - service.alone.perDepositMs * created) * 1000) / messages;
    const bareUs = (baseline.cpu.server * 1000) / Math.max(1, b.latencies.length);
    const p = (values: number[], q: number) => round(percentile(values, q));
    const problems = [
      s.subscribers !== SUBSCRIBERS ? `${s.subscribers} subscribers` : '',
      s.missing ? `${s.missing} messages missing` : '',
      s.duplicates ? `${s.duplicates} duplicates` : '',
      s.outOfOrder ? `${s.outOfOrder} out of order` : '',
      s.closed ? `${s.closed} sockets closed` : '',
      s.errors.length ? `errors: ${s.errors.slice(0, 3).join('; ')}` : '',
      service.settled ? '' : 'not every deposit settled within 30 s',
      service.load.skipped ? `${service.load.skipped} deposits not sent (50 in flight)` : '',
      Object.keys(service.load.statuses).some((k) => k !== '201')
        ? `deposit answers ${JSON.stringify(service.load.statuses)}`
        : '',
    ].filter(Boolean);
    const note =
      `${created} deposits at ${DEPOSITS_PER_SECOND}/s over ${ONRAMPS} onramps for ${LOAD_MS / 1000} s = ` +
      `${service.expected} changes x ${s.subscribers} subscribers = ${s.latencies.length} ` +
      `messages (${problems.length ? problems.join(', ') : 'every subscriber got every change once, in order'}); ` +
      `p50 ${p(s.latencies, 50)} ms, max ${p(s.latencies, 100)} ms; p99 by change: ` +
      `PENDING_FX (gateway) ${p(s.byStatus.PENDING_FX ?? [], 99)} ms, ` +
      `SETTLED (runner) ${p(s.byStatus.SETTLED ?? [], 99)} ms; ` +
      `deposit POST p99 ${p(service.load.latenciesMs, 99)} ms; sessions waiting on a lock in ` +
      `${Math.round(service.lockWaits.share * 100)}% of 100 ms samples (mean ` +
      `${round(service.lockWaits.mean)}${service.lockWaits.top ? `, mostly "${service.lockWaits.top}"` : ''}); ` +
      `CPU over the ${round(service.cpu.windowMs / 1000)} s window: gateway ` +
      `${round(service.cpu.gateway / 1000)} s (${round(gatewayUs)} µs a message; without ` +
      `subscribers the same traffic cost it ${round(service.alone.perDepositMs)} ms a deposit, ` +
      `${round(gatewayUs - fanOutUs)} µs of each message's share), ` +
      `runner ${round(service.cpu.runner / 1000)} s, clients ${round(service.cpu.clients / 1000)} s, ` +
      `machine ${Math.round(service.cpu.machineBusy * 100)}% busy; ` +
      `1,000 sockets connected in ${service.connectMs} ms. ` +
      `Baseline: bare ws broadcaster, ${b.latencies.length} messages of ${baseline.bytes} B ` +
      `(gateway's ${baseline.realBytes} B), server CPU ${round(baseline.cpu.server / 1000)} s ` +
      `(${round(bareUs)} µs a message), clients ${round(baseline.cpu.clients / 1000)} s, p50 ${p(b.latencies, 50)} ms, max ${p(b.latencies, 100)} ms` +
      `${b.missing ? `, ${b.missing} missing` : ''}; machine ${Math.round(background * 100)}% busy ` +
      'before the run (other processes)';
    return [
      {
        benchmark: NAME,
        figure: 'status change to message p99 (1,000 subscribers)',
        unit: 'ms',
        target: 250,
        better: 'lower',
        measured: p(s.latencies, 99),
        baseline: p(b.latencies, 99),
        baselineIs: 'bare ws broadcast',
        note,
      },
      {
        benchmark: NAME,
        figure: 'gateway CPU per message, fan-out only (1,000 subscribers)',
        unit: 'µs',
        target: round(1.3 * bareUs),
        better: 'lower',
        measured: round(fanOutUs),
        baseline: round(bareUs),
        baselineIs: 'bare ws broadcast, server CPU per message',
        note:
          `target = 1.3 x bare; the gateway's CPU over the window (${round(gatewayUs)} µs a ` +
          `message) less the same deposit traffic's CPU measured without subscribers just before ` +
          `(${round(service.alone.perDepositMs)} ms a deposit x ${created} deposits)`,
      },
    ];
  } finally {
    await Promise.all(clients.map((c) => c.stop()));
  }
}

export const subscriptionsBenchmark: Benchmark = {
  name: NAME,
  description:
    '1,000 graphql-ws subscribers (2 client processes), 20 deposits/s for 10 s: status change to message latency',
  run,
};
