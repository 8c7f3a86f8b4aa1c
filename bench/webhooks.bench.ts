/**
 * Webhook delivery by the real job runner to a local receiver (its own process, answers 200
 * at once). Eight merchants, each with its endpoint on that receiver (a path each), so the
 * runner may use all of its WEBHOOK_CONCURRENCY (200) slots: the per-endpoint cap is 25.
 *
 * (a) First attempt: deposits at a steady rate; for every delivery, the receiver's receive
 *     time minus the envelope's `created_at` (the event's time: the deposit's updated_at, set
 *     by the service clock with the status change; same machine, same clock).
 * (b) Deliveries per second: a backlog of ~10,000 due deliveries appears at once (one
 *     transaction copies the steady phase's real events into the outbox; the real trigger
 *     makes their deliveries and NOTIFYs the runner at commit), and the runner drains it.
 *     Rate = backlog / (arrival of its last delivery - commit). This is the runner's delivery
 *     rate (claim, sign, POST, record). Deposits through the API would measure something else:
 *     a closed loop of deposits is bounded by how fast the gateway takes deposits (~60/s here)
 *     and the runner settles them, and a backlog built that way within the time budget is
 *     under a thousand deliveries, drained in about a second.
 *     Baseline: one bare HTTP client process POSTing envelopes of the same size to the same
 *     receiver, 200 at a time (the runner's WEBHOOK_CONCURRENCY): the machine's ceiling.
 */
import { join } from 'node:path';
import { Client } from 'pg';
import { OWED_PER_ENDPOINT } from '../src/db/migrations/Migration20261125100200_webhook_endpoints';
import { createMerchant } from '../test/support/stack';
import type { Benchmark } from './benchmarks';
import { runLoad, type RequestTemplate } from './lib/load';
import type { Row } from './lib/results';
import { startBenchStack } from './lib/stack';
import { percentile, round } from './lib/stats';
import type { Received } from './lib/webhook-receiver';
import { api, pause, permanentOnramp, QUICK, untilTrue } from './lib/ws-api';
import {
  backgroundLoad,
  cpuMs,
  forkRpc,
  machineCpuMs,
  postgresCpuMs,
  type RpcChild,
} from './lib/ws-rpc';

const NAME = 'webhooks';
const MERCHANTS = 8;
const DEPOSITS_PER_SECOND = 20;
const LATENCY_LOAD_MS = QUICK ? 3_000 : 10_000;
/** Deliveries in the backlog (b), about. */
const BACKLOG = QUICK ? 2_000 : 10_000;
const WEBHOOK_CONCURRENCY = 200;

interface Hooked {
  key: string;
  merchantId: string;
  account: string;
  path: string;
  secret: string;
}

async function setEndpoint(baseUrl: string, key: string, url: string): Promise<string> {
  const answer = await api(baseUrl, key, 'POST', '/graphql', {
    query: 'mutation($u: String!) { setWebhookEndpoint(url: $u) { secret } }',
    variables: { u: url },
  });
  const secret = (answer.body.data as { setWebhookEndpoint?: { secret: string } } | undefined)
    ?.setWebhookEndpoint?.secret;
  if (!secret) throw new Error(`setWebhookEndpoint: ${JSON.stringify(answer.body)}`);
  return secret;
}

const depositRequests = (merchants: Hooked[], tag: string): RequestTemplate[] =>
  merchants.map((m) => ({
    method: 'POST',
    path: '/v1/sandbox/deposits',
    headers: { authorization: `Bearer ${m.key}` },
    body: { account_number: m.account, amount_ngn: '15000', bank_reference: `${tag}-{{n}}` },
  }));

async function run(): Promise<Row[]> {
  const receiver = forkRpc(join(__dirname, 'lib', 'webhook-receiver.js'));
  try {
    const background = await backgroundLoad();
    const port = await receiver.call<number>({ type: 'listen' });
    const service = await measureService(receiver, port);
    const baseline = await measureBaseline(receiver, port, service.sampleEnvelope);
    return rows(service, baseline, background);
  } finally {
    await receiver.call({ type: 'close' }).catch(() => undefined);
    await receiver.stop();
  }
}

async function measureService(receiver: RpcChild, port: number) {
  const bench = await startBenchStack();
  const db = new Client({ connectionString: bench.databaseUrl });
  await db.connect();
  const q = async <T>(text: string, params: unknown[] = []) =>
    (await db.query(text, params)).rows as T[];
  try {
    const { url } = bench.stack;
    const others = await Promise.all(
      Array.from({ length: MERCHANTS - 1 }, (_, i) =>
        createMerchant(bench.databaseUrl, `Bench Hooks ${i + 2}`),
      ),
    );
    const merchants: Hooked[] = await Promise.all(
      [bench.merchant, ...others].map(async (m, i) => {
        const path = `/hooks/${i + 1}`;
        return {
          key: m.api_key,
          merchantId: m.merchant_id,
          path,
          secret: await setEndpoint(url, m.api_key, `http://127.0.0.1:${port}${path}`),
          account: await permanentOnramp(url, m.api_key),
        };
      }),
    );
    const ids = merchants.map((m) => m.merchantId);
    const settledAll = (timeoutMs: number) =>
      untilTrue(async () => {
        const [row] = await q<{ n: number }>(
          `select count(*)::int as n from deposits
            where merchant_id = any($1) and status = 'PENDING_FX'`,
          [ids],
        );
        return row.n === 0;
      }, timeoutMs);
    const pendingDeliveries = async () =>
      (
        await q<{ n: number }>(
          `select count(*)::int as n from webhook_deliveries
            where merchant_id = any($1) and status = 'PENDING'`,
          [ids],
        )
      )[0].n;
    const topSeq = async () =>
      (await q<{ top: string }>('select coalesce(max(seq), 0)::text as top from events'))[0].top;
    const deliveriesSince = async (seq: string) =>
      (
        await q<{ n: number }>(
          `select count(*)::int as n from webhook_deliveries d join events e on e.id = d.event_id
            where d.merchant_id = any($1) and e.seq > $2`,
          [ids, seq],
        )
      )[0].n;

    // Warm-up: a deposit per merchant, delivered (created and settled) to every endpoint.
    for (const m of merchants) {
      const warm = await api(url, m.key, 'POST', '/v1/sandbox/deposits', {
        account_number: m.account,
        amount_ngn: '15000',
        bank_reference: `hook-warm-${m.merchantId}`,
      });
      if (warm.status !== 201) throw new Error(`warm-up deposit: ${JSON.stringify(warm)}`);
    }
    await settledAll(30_000);
    await untilTrue(async () => (await pendingDeliveries()) === 0, 30_000);
    await receiver.call({ type: 'reset' });

    // (a) First-attempt latency at a steady rate.
    const before = await topSeq();
    const steady = await runLoad(
      {
        baseUrl: url,
        requests: depositRequests(merchants, 'hook-steady'),
        durationMs: LATENCY_LOAD_MS,
        concurrency: 50,
        rate: DEPOSITS_PER_SECOND,
      },
      1,
    );
    const steadySettled = await settledAll(30_000);
    await untilTrue(async () => (await pendingDeliveries()) === 0, 30_000);
    const steadyExpected = await deliveriesSince(before);
    await untilTrue(
      async () => (await receiver.call<number>({ type: 'count' })) >= steadyExpected,
      10_000,
    );
    await pause(300); // room for a duplicate to show up
    const steadyReceived = await receiver.call<Received[]>({ type: 'report' });
    const signatures = await receiver.call<{
      verified: number;
      failed: number;
      failures: string[];
    }>({
      type: 'verify',
      secrets: Object.fromEntries(merchants.map((m) => [m.path, m.secret])),
    });
    const sampleEnvelope = (await receiver.call<string | null>({ type: 'sampleBody' })) ?? '{}';

    // (b) Backlog drain. The backlog is made in one transaction: the steady phase's real
    // events copied into the outbox (same kinds and snapshots, so the same envelopes), whose
    // deliveries the real trigger creates and announces (NOTIFY) at commit. The clock starts
    // just before the commit; the runner cannot start earlier.
    await receiver.call({ type: 'reset' });
    const copies = Math.ceil(BACKLOG / Math.max(1, steadyExpected));
    const pgPort = Number(new URL(bench.databaseUrl).port);
    const runnerPid = bench.stack.runners[0].child.pid;
    await db.query('begin');
    // Deposit events get their deliveries from the deposits' statement trigger, not from a
    // trigger on events (issue 18's lean events): the copy writes them with the same SQL that
    // trigger runs (OWED_PER_ENDPOINT) and the same notice per merchant, sent at commit.
    const inserted = await db.query<{ deliveries: number }>(
      `with written as (
         insert into events (id, kind, merchant_id, deposit_id, status, snapshot, created_at)
         select 'evt_' || replace(gen_random_uuid()::text, '-', ''), e.kind, e.merchant_id,
                e.deposit_id, e.status, e.snapshot, now()
           from events e cross join generate_series(1, $3::int) copy
          where e.seq > $1 and e.merchant_id = any($2)
          order by copy, e.seq
         returning id, seq, kind, merchant_id, created_at
       ),
       owed as (${OWED_PER_ENDPOINT})
       select (select count(*) from owed)::int as deliveries,
              (select count(pg_notify('webhook_deliveries', o.merchant_id))
                 from (select distinct merchant_id from owed) o) as notices`,
      [before, ids, copies],
    );
    const backlog = inserted.rows[0].deliveries;
    const cpuBefore = {
      runner: cpuMs(runnerPid),
      postgres: postgresCpuMs(pgPort),
      machine: machineCpuMs(),
    };
    const committedAt = performance.timeOrigin + performance.now();
    await db.query('commit');
    const drained = await untilTrue(
      async () => (await receiver.call<number>({ type: 'count' })) >= backlog,
      60_000,
      20,
    );
    const cpuAfter = {
      runner: cpuMs(runnerPid),
      postgres: postgresCpuMs(pgPort),
      machine: machineCpuMs(),
    };
    await pause(300); // room for a duplicate to show up
    const backlogReceived = await receiver.call<Received[]>({ type: 'report' });
    const stillPending = await pendingDeliveries();
    return {
      merchants,
      steady,
      steadySettled,
      steadyExpected,
      steadyReceived,
      signatures,
      sampleEnvelope,
      backlog,
      committedAt,
      drained,
      backlogReceived,
      stillPending,
      cpu: {
        runner: cpuAfter.runner - cpuBefore.runner,
        postgres: cpuAfter.postgres - cpuBefore.postgres,
        machineBusy:
          (cpuAfter.machine.busy - cpuBefore.machine.busy) /
          (cpuAfter.machine.total - cpuBefore.machine.total),
      },
    };
  } finally {
    await db.end();
    await bench.stop();
  }
}

async function measureBaseline(receiver: RpcChild, port: number, sampleEnvelope: string) {
  await receiver.call({ type: 'reset' });
  const result = await runLoad(
    {
      baseUrl: `http://127.0.0.1:${port}`,
      requests: [
        {
          method: 'POST',
          path: '/baseline',
          headers: {
            'webhook-id': 'evt_00000000000000000000000000000000',
            'webhook-timestamp': '1700000000',
            'webhook-signature': `v1,${'A'.repeat(43)}=`,
          },
          body: JSON.parse(sampleEnvelope),
        },
      ],
      durationMs: 5_000,
      concurrency: WEBHOOK_CONCURRENCY,
    },
    1,
  );
  return result;
}

function rows(
  s: Awaited<ReturnType<typeof measureService>>,
  baseline: Awaited<ReturnType<typeof measureBaseline>>,
  background: number,
): Row[] {
  const neighbours = `; machine ${Math.round(background * 100)}% busy before the run (other processes)`;
  const p = (values: number[], q: number) => round(percentile(values, q));
  const latency = s.steadyReceived.map((r) => r.at - Date.parse(r.createdAt));
  const byEvent = (event: string) =>
    s.steadyReceived.filter((r) => r.event === event).map((r) => r.at - Date.parse(r.createdAt));
  const unique = new Set(s.steadyReceived.map((r) => r.id)).size;
  const steadyProblems = [
    s.steadyExpected - unique > 0 ? `${s.steadyExpected - unique} missing` : '',
    s.steadyReceived.length - unique > 0 ? `${s.steadyReceived.length - unique} duplicates` : '',
    s.signatures.failed ? `${s.signatures.failed} signatures did not verify` : '',
    s.steadySettled ? '' : 'not every deposit settled within 30 s',
    s.steady.skipped ? `${s.steady.skipped} deposits not sent` : '',
  ].filter(Boolean);

  // The drain: from the commit to the arrival of the backlog's last delivery.
  const arrivals = s.backlogReceived.map((r) => r.at).sort((a, b) => a - b);
  const lastAt = arrivals[Math.min(s.backlog, arrivals.length) - 1];
  const drainMs = lastAt - s.committedAt;
  const rate = (Math.min(s.backlog, arrivals.length) / drainMs) * 1000;
  // The middle 80 %, without the start (claiming the first batch) and the tail.
  const at = (fraction: number) => arrivals[Math.floor(fraction * (arrivals.length - 1))];
  const middleRate = ((0.8 * (arrivals.length - 1)) / (at(0.9) - at(0.1))) * 1000;
  const backlogUnique = new Set(s.backlogReceived.map((r) => r.id)).size;
  const drainProblems = [
    s.drained ? '' : `only ${arrivals.length} of ${s.backlog} within 60 s`,
    s.backlogReceived.length - backlogUnique > 0
      ? `${s.backlogReceived.length - backlogUnique} duplicates`
      : '',
    s.stillPending ? `${s.stillPending} deliveries still PENDING` : '',
  ].filter(Boolean);
  const perDelivery = (ms: number) => round((ms * 1000) / Math.max(1, s.backlog));

  return [
    {
      benchmark: NAME,
      figure: 'status change to first webhook attempt p99',
      unit: 'ms',
      target: 1000,
      better: 'lower',
      measured: p(latency, 99),
      baseline: null,
      baselineIs: '',
      note:
        `${s.steady.statuses['201'] ?? 0} deposits at ${DEPOSITS_PER_SECOND}/s over ${MERCHANTS} merchants ` +
        `for ${LATENCY_LOAD_MS / 1000} s: ${s.steadyReceived.length} deliveries of ${s.steadyExpected} ` +
        `(${steadyProblems.length ? steadyProblems.join(', ') : 'each once'}; ` +
        `${s.signatures.verified} sampled signatures verified); p50 ${p(latency, 50)} ms, ` +
        `max ${p(latency, 100)} ms; p99 deposit.created ${p(byEvent('deposit.created'), 99)} ms, ` +
        `deposit.settled ${p(byEvent('deposit.settled'), 99)} ms${neighbours}`,
    },
    {
      benchmark: NAME,
      figure: 'deliveries per second (backlog drain)',
      unit: '/s',
      target: 500,
      better: 'higher',
      measured: round(rate),
      baseline: round(baseline.throughput),
      baselineIs: `bare HTTP client, ${WEBHOOK_CONCURRENCY} in flight`,
      note:
        `backlog of ${s.backlog} deliveries (the steady phase's events copied into the outbox in ` +
        `one transaction) drained in ${round(drainMs)} ms after the commit; middle 80 % at ` +
        `${round(middleRate)}/s` +
        `${drainProblems.length ? `; ${drainProblems.join(', ')}` : '; each once'}; CPU a delivery: ` +
        `runner ${perDelivery(s.cpu.runner)} µs, PostgreSQL ${perDelivery(s.cpu.postgres)} µs; ` +
        `machine ${Math.round(s.cpu.machineBusy * 100)}% busy; baseline ${baseline.latenciesMs.length} ` +
        `requests, p99 ${p(baseline.latenciesMs, 99)} ms${neighbours}`,
    },
  ];
}

export const webhooksBenchmark: Benchmark = {
  name: NAME,
  description:
    'webhooks to a local receiver (8 merchants): first attempt after the status change at 20 deposits/s; backlog drain rate',
  run,
};
