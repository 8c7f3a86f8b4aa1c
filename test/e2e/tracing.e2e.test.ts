import { randomBytes } from 'node:crypto';
import { startTestChains, type TestChains } from '../support/chains';
import { createTestDatabase } from '../support/db';
import { request, setWebhookEndpoint } from '../support/http';
import { autoWithdrawOnramp, balanceOnramp, freshRate } from '../support/onramps';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { sql } from '../support/sql';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

const SERVER = 2;
const CLIENT = 3;

/** A caller's W3C trace context: a fresh trace id and span id, sampled. */
function callerTrace() {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/**
 * Tracing on (OTEL_EXPORTER_OTLP_ENDPOINT at a real OTLP/HTTP receiver stand-in): a deposit
 * recorded in a request carrying `traceparent` yields one trace across both processes: the
 * gateway's request span (a child of the caller's), the runner's settlement, FX order and
 * payout spans for that deposit, and its webhook deliveries.
 */
describe('tracing across a deposit (OTLP/HTTP JSON to a receiver stand-in)', () => {
  let chains: TestChains;
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  const otlp = new OtlpReceiver();
  const hooks = new WebhookReceiver();

  beforeAll(async () => {
    await otlp.start();
    await hooks.start();
    chains = await startTestChains();
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: {
        ...chains.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        // Batches leave every 200 ms instead of every 5 s (OpenTelemetry's standard variable).
        OTEL_BSP_SCHEDULE_DELAY: '200',
        RATE_LIMIT_PER_MINUTE: '100000',
      },
    });
    key = (await createMerchant(databaseUrl, 'Traced Co')).api_key;
    await setWebhookEndpoint(stack.url, key, hooks.url);
  });
  afterAll(async () => {
    await stack?.stop();
    await chains?.stop();
    await hooks.stop();
    await otlp.stop();
  });

  const named = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);
  const settledStatus = async (depositId: string) =>
    (await request(stack.url, 'GET', `/v1/deposits/${depositId}`, { key })).body.status;

  it('REST: the sandbox deposit, its settlement, FX order, payout and webhooks share the caller’s trace', async () => {
    const rate = await freshRate(stack.url, key);
    const onramp = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      body: autoWithdrawOnramp(rate.rate_id),
    });
    expect(onramp.status).toBe(201);
    const caller = callerTrace();
    const deposit = await request(stack.url, 'POST', '/v1/sandbox/deposits', {
      key,
      headers: { traceparent: caller.traceparent },
      body: { account_number: onramp.body.virtual_account.account_number, amount_ngn: '15000' },
    });
    expect(deposit.status).toBe(201);
    const depositId = deposit.body.deposit_id as string;
    // On chain, then the three events delivered (created, pending_withdrawal, settled).
    await eventually(
      async () => ((await settledStatus(depositId)) === 'SETTLED' ? true : undefined),
      60_000,
    );

    const spans = await eventually(async () => {
      const trace = otlp.trace(caller.traceId);
      const delivered = named(trace, 'webhook.deliver').length >= 3;
      const paid = named(trace, 'payout.sign_and_send').length === 1;
      return delivered && paid ? trace : undefined;
    }, 30_000);

    const [request_] = named(spans, 'POST /v1/sandbox/deposits');
    expect(request_).toMatchObject({
      service: 'onramp-gateway',
      kind: SERVER,
      parentSpanId: caller.spanId,
      attributes: expect.objectContaining({
        'http.route': '/v1/sandbox/deposits',
        'http.response.status_code': 201,
      }),
    });
    const [settle] = named(spans, 'deposit.settle');
    expect(settle).toMatchObject({
      service: 'onramp-jobs',
      parentSpanId: request_.spanId,
      attributes: expect.objectContaining({
        'onramp.deposit.id': depositId,
        'onramp.deposit.status': 'PENDING_WITHDRAWAL',
      }),
    });
    expect(named(spans, 'fx.order')).toEqual([
      expect.objectContaining({ service: 'onramp-jobs', parentSpanId: settle.spanId }),
    ]);
    expect(named(spans, 'payout.sign_and_send')).toEqual([
      expect.objectContaining({
        service: 'onramp-jobs',
        parentSpanId: settle.spanId,
        attributes: expect.objectContaining({
          'onramp.chain': 'BASE',
          'onramp.payout.status': 'SIGNED',
        }),
      }),
    ]);
    const deliveries = named(spans, 'webhook.deliver');
    expect(deliveries.map((d) => d.attributes['onramp.event.kind']).sort()).toEqual([
      'deposit.created',
      'deposit.pending_withdrawal',
      'deposit.settled',
    ]);
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({
        service: 'onramp-jobs',
        kind: CLIENT,
        parentSpanId: request_.spanId,
        attributes: expect.objectContaining({ 'onramp.webhook.outcome': 'succeeded' }),
      });
    }
    // Exported as OTLP/JSON to the standard path.
    expect(new Set(otlp.requests.map((r) => `${r.path} ${r.contentType}`))).toEqual(
      new Set(['/v1/traces application/json']),
    );
  });

  it('GraphQL: simulateDeposit with a traceparent; without one, a new trace starts at the gateway', async () => {
    const rate = await freshRate(stack.url, key);
    const onramp = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      body: balanceOnramp(rate.rate_id),
    });
    const caller = callerTrace();
    const simulate = (traceparent?: string) =>
      request(stack.url, 'POST', '/graphql', {
        key,
        headers: traceparent ? { traceparent } : {},
        body: {
          query: 'mutation($i: SimulateDepositInput!) { simulateDeposit(input: $i) { id } }',
          variables: {
            i: { accountNumber: onramp.body.virtual_account.account_number, amountNgn: '16000' },
          },
        },
      });
    const traced = await simulate(caller.traceparent);
    expect(traced.body.errors).toBeUndefined();
    const depositId = traced.body.data.simulateDeposit.id as string;
    const spans = await eventually(async () => {
      const trace = otlp.trace(caller.traceId);
      return named(trace, 'deposit.settle').length === 1 ? trace : undefined;
    }, 30_000);
    const [gatewaySpan] = named(spans, 'POST /graphql');
    expect(gatewaySpan).toMatchObject({ kind: SERVER, parentSpanId: caller.spanId });
    expect(named(spans, 'deposit.settle')[0]).toMatchObject({
      parentSpanId: gatewaySpan.spanId,
      attributes: expect.objectContaining({
        'onramp.deposit.id': depositId,
        'onramp.deposit.status': 'SETTLED',
      }),
    });

    // No traceparent: the gateway starts a trace (a root span), and the deposit carries it.
    const untraced = await simulate();
    const rootId = untraced.body.data.simulateDeposit.id as string;
    const [row] = await sql<{ trace_parent: string }>(
      databaseUrl,
      'select trace_parent from deposits where id = $1',
      [rootId],
    );
    const [, traceId] = row.trace_parent.split('-');
    const root = await eventually(async () => {
      const trace = otlp.trace(traceId);
      return named(trace, 'deposit.settle').length === 1 ? trace : undefined;
    }, 30_000);
    expect(named(root, 'POST /graphql')[0].parentSpanId).toBe('');
  });

  it('hostile trace headers (seeded): every request answers 201, and the deposit stores a well-formed context', async () => {
    const seed = Number(process.env.FUZZ_SEED ?? 20261129);
    const next = mulberry32(seed);
    const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)];
    const printable = (length: number) =>
      Array.from({ length }, () => String.fromCharCode(32 + Math.floor(next() * 95))).join('');
    const hex = (length: number) =>
      Array.from({ length }, () => '0123456789abcdef'[Math.floor(next() * 16)]).join('');
    const hostile = () =>
      pick([
        () => printable(Math.floor(next() * 600)),
        () => `00-${'0'.repeat(32)}-${hex(16)}-01`,
        () => `00-${hex(32)}-${'0'.repeat(16)}-01`,
        () => `ff-${hex(32)}-${hex(16)}-01`,
        () => `00-${hex(32).toUpperCase()}-${hex(16)}-01`,
        () => `00-${hex(31)}-${hex(16)}-01`,
        () => `00-${hex(32)}-${hex(16)}-01-${printable(20)}`,
        () => `00-${hex(32)}-${hex(16)}-zz`,
        () => `${hex(2)}-${hex(32)}-${hex(16)}-${hex(2)},${printable(40)}`,
      ])();
    const rate = await freshRate(stack.url, key);
    const onramp = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      body: balanceOnramp(rate.rate_id),
    });
    const ids: string[] = [];
    for (let i = 0; i < 40; i += 1) {
      const headers = { traceparent: hostile(), tracestate: printable(Math.floor(next() * 300)) };
      const answer = await request(stack.url, 'POST', '/v1/sandbox/deposits', {
        key,
        headers,
        body: { account_number: onramp.body.virtual_account.account_number, amount_ngn: '15000' },
      });
      if (answer.status !== 201) {
        throw new Error(
          `seed ${seed}, request ${i}: ${answer.status} for ${JSON.stringify(headers)}`,
        );
      }
      ids.push(answer.body.deposit_id as string);
    }
    const rows = await sql<{ trace_parent: string | null }>(
      databaseUrl,
      'select trace_parent from deposits where id = any($1)',
      [ids],
    );
    expect(rows).toHaveLength(ids.length);
    for (const row of rows) {
      expect(row.trace_parent).toMatch(/^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-0[01]$/);
    }
  });
});

/** A small seeded generator (mulberry32): the same seed replays the same headers. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
