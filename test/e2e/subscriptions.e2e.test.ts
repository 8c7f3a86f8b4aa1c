import WebSocket from 'ws';
import type { Client } from 'graphql-ws';
import { createTestDatabase } from '../support/db';
import {
  baseEnv,
  createMerchant,
  eventually,
  startRunner,
  startStack,
  type RunningProcess,
  type Stack,
} from '../support/stack';
import { graphql, request } from '../support/http';
import { balanceOnramp, createBalanceOnramp, freshRate, sandboxTransfer } from '../support/onramps';
import { sql } from '../support/sql';
import { wsClient } from '../support/ws';
import { GATEWAY_LISTEN_APPLICATION_NAME } from '../../src/db/notification-hub';

const FIELDS =
  'id depositId onrampId merchantId paymentReference userEmail amountNgn bankReference rateId ' +
  'amountAsset asset chain txHash status failureReason flagReason createdAt settledAt updatedAt';
const SUBSCRIPTION = `subscription($onrampId: ID, $depositId: ID) {
  depositUpdated(onrampId: $onrampId, depositId: $depositId) { ${FIELDS} }
}`;
/** Each gateway's one LISTEN connection (deposit events and every other channel on it). */
const LISTENER = GATEWAY_LISTEN_APPLICATION_NAME;

interface DepositMessage {
  depositId: string;
  onrampId: string;
  merchantId: string;
  status: string;
  [field: string]: unknown;
}

/** One live subscription: what it received, in order, and any error. */
interface Watch {
  messages: DepositMessage[];
  errors: Array<{ message?: string; extensions?: { code?: string } }>;
  of(depositId: string): string[];
}

function watch(client: Client, variables: { onrampId?: string; depositId?: string } = {}): Watch {
  const w: Watch = {
    messages: [],
    errors: [],
    of: (depositId) => w.messages.filter((m) => m.depositId === depositId).map((m) => m.status),
  };
  client.subscribe<{ depositUpdated: DepositMessage }>(
    { query: SUBSCRIPTION, variables },
    {
      next: (result) => {
        if (result.errors) w.errors.push(...(result.errors as Watch['errors']));
        else if (result.data) w.messages.push(result.data.depositUpdated);
      },
      error: (error) => w.errors.push(error as Watch['errors'][number]),
      complete: () => undefined,
    },
  );
  return w;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Subscriptions register asynchronously on the gateway, and the protocol does not
 * acknowledge them. A watch that has received `depositId` is registered; graphql-ws handles a
 * connection's messages in order, so earlier subscriptions on the same connection (same
 * registration path) are registered too.
 */
async function untilAllSaw(watches: Watch[], depositId: string): Promise<void> {
  await eventually(async () =>
    watches.every((w) => w.messages.some((m) => m.depositId === depositId)) ? true : undefined,
  );
}

/**
 * Sends warm-up transfers until every watch has seen one from its first status (PENDING_FX),
 * so all of them are registered; answers that deposit's id. One transfer is usually enough,
 * but on a loaded machine a subscription can register after a deposit has already settled
 * (settlement follows within milliseconds), and then waits in vain for it.
 */
async function warmUp(
  watches: Watch[],
  send: () => Promise<{ deposit_id: string }>,
): Promise<string> {
  const deadline = Date.now() + 60_000;
  const sent: string[] = [];
  const seenByAll = () => sent.find((id) => watches.every((w) => w.of(id).includes('PENDING_FX')));
  for (;;) {
    sent.push((await send()).deposit_id);
    const id = await eventually(async () => seenByAll(), 5_000).catch(() => undefined);
    if (id) return id;
    if (Date.now() > deadline) throw new Error('the subscriptions never saw a warm-up deposit');
  }
}

/** The gateways' LISTEN connections to this test's database (the server serves every file's). */
async function listenerCount(databaseUrl: string): Promise<number> {
  const [row] = await sql<{ n: number }>(
    databaseUrl,
    `select count(*)::int as n from pg_stat_activity
      where application_name = $1 and datname = current_database()`,
    [LISTENER],
  );
  return row.n;
}

describe('depositUpdated over graphql-ws (two gateways, two job runners)', () => {
  let stack: Stack;
  let databaseUrl: string;
  const clients: Client[] = [];
  let merchantA: { merchant_id: string; api_key: string };
  let merchantB: { merchant_id: string; api_key: string };

  let secondRunner: RunningProcess | undefined;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    const env = { RATE_LIMIT_PER_MINUTE: '100000' };
    stack = await startStack(databaseUrl, { gateways: 2, runners: 1, env });
    // The second runner starts after the first: two runners starting at once on a fresh
    // database can both try to create Agenda's tables (and one exits).
    secondRunner = await startRunner(baseEnv(databaseUrl, env));
    [merchantA, merchantB] = await Promise.all([
      createMerchant(databaseUrl, 'Subscriber A'),
      createMerchant(databaseUrl, 'Subscriber B'),
    ]);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await Promise.all([stack?.stop(), secondRunner?.stop()]);
  });

  function client(url: string, token: string): Client {
    const c = wsClient(url, `Bearer ${token}`);
    clients.push(c);
    return c;
  }

  const onramp = (key: string) => createBalanceOnramp(stack.url, key);

  const transfer = (
    key: string,
    o: { virtual_account: { account_number: string } },
    ngn = '15000',
  ) => sandboxTransfer(stack.url, key, o.virtual_account.account_number, ngn);

  const settled = (key: string, depositId: string) =>
    eventually(async () => {
      const d = await request(stack.url, 'GET', `/v1/deposits/${depositId}`, { key });
      return d.body.status === 'SETTLED' ? d.body : undefined;
    });

  it('every A subscriber on either gateway gets each status change of A once, in order, with the Deposit fields; B gets none of it', async () => {
    const [onrampA, otherOnrampA, onrampB] = await Promise.all([
      onramp(merchantA.api_key),
      onramp(merchantA.api_key),
      onramp(merchantB.api_key),
    ]);
    const [g1, g2] = stack.gateways.map((g) => g.url);
    const aWatches = [g1, g2].map((url) => watch(client(url, merchantA.api_key)));
    const bWatches = [g1, g2].map((url) => watch(client(url, merchantB.api_key)));
    const secretWatch = watch(client(g2, onrampA.client_secret));

    const [warmA, warmB] = await Promise.all([
      warmUp([...aWatches, secretWatch], () => transfer(merchantA.api_key, onrampA)),
      warmUp(bWatches, () => transfer(merchantB.api_key, onrampB)),
    ]);
    await Promise.all([settled(merchantA.api_key, warmA), settled(merchantB.api_key, warmB)]);

    const onOnrampA = await Promise.all(
      ['15000', '20000.50', '31000', '1600'].map((ngn) =>
        transfer(merchantA.api_key, onrampA, ngn),
      ),
    );
    const onOtherOnramp = await transfer(merchantA.api_key, otherOnrampA);
    const deposits = [...onOnrampA, onOtherOnramp];
    const finals = await Promise.all(
      deposits.map((d) => settled(merchantA.api_key, d.deposit_id as string)),
    );
    const ids = deposits.map((d) => d.deposit_id as string);
    await eventually(async () =>
      aWatches.every((w) => ids.every((id) => w.of(id).length >= 2)) ? true : undefined,
    );
    await pause(750); // room for a duplicate or a stray message to show up

    const expected = await Promise.all(
      ids.map(async (id) => {
        const answer = await graphql(
          stack.url,
          merchantA.api_key,
          `query($id: ID!) { deposit(id: $id) { ${FIELDS} } }`,
          { id },
        );
        return answer.body.data.deposit as DepositMessage;
      }),
    );
    for (const w of aWatches) {
      expect(w.errors).toEqual([]);
      for (const [i, id] of ids.entries()) {
        expect(w.of(id)).toEqual(['PENDING_FX', 'SETTLED']);
        const [pending, done] = w.messages.filter((m) => m.depositId === id);
        expect(done).toEqual(expected[i]);
        const { depositId, onrampId, merchantId, paymentReference, userEmail, amountNgn } =
          expected[i];
        expect(pending).toMatchObject({
          id: depositId,
          depositId,
          onrampId,
          merchantId,
          paymentReference,
          userEmail,
          amountNgn,
          bankReference: expected[i].bankReference,
          rateId: expected[i].rateId,
          createdAt: expected[i].createdAt,
          status: 'PENDING_FX',
          settledAt: null,
          txHash: null,
          failureReason: null,
          flagReason: null,
        });
        expect(finals[i].status).toBe('SETTLED');
      }
    }
    // The client secret sees its own onramp only.
    expect(secretWatch.errors).toEqual([]);
    for (const d of onOnrampA)
      expect(secretWatch.of(d.deposit_id)).toEqual(['PENDING_FX', 'SETTLED']);
    expect(secretWatch.of(onOtherOnramp.deposit_id)).toEqual([]);
    expect(new Set(secretWatch.messages.map((m) => m.onrampId))).toEqual(
      new Set([onrampA.onramp_id]),
    );
    // B's subscribers got B's own deposit (so they work) and nothing of A's.
    for (const w of bWatches) {
      expect(w.errors).toEqual([]);
      expect(w.of(warmB)).toEqual(['PENDING_FX', 'SETTLED']);
      expect(w.messages.filter((m) => m.merchantId !== merchantB.merchant_id)).toEqual([]);
    }
  });

  it('filters by onrampId and depositId; a client secret may not look past its onramp; other merchants’ ids yield nothing', async () => {
    const [onramp1, onramp2, onrampB] = await Promise.all([
      onramp(merchantA.api_key),
      onramp(merchantA.api_key),
      onramp(merchantB.api_key),
    ]);
    const [existing, onSecond, ofB] = await Promise.all([
      transfer(merchantA.api_key, onramp1),
      transfer(merchantA.api_key, onramp2),
      transfer(merchantB.api_key, onrampB),
    ]);
    await Promise.all([
      settled(merchantA.api_key, existing.deposit_id),
      settled(merchantA.api_key, onSecond.deposit_id),
      settled(merchantB.api_key, ofB.deposit_id),
    ]);
    const g = stack.gateways[1].url;

    const keyA = client(g, merchantA.api_key);
    const byOnramp = watch(keyA, { onrampId: onramp2.onramp_id });
    const byDeposit = watch(keyA, { depositId: existing.deposit_id });
    const aOfB = watch(keyA, { depositId: ofB.deposit_id });
    const probeA = watch(keyA);

    const keyB = client(g, merchantB.api_key);
    const bOnOnrampOfA = watch(keyB, { onrampId: onramp1.onramp_id });
    const bOnDepositOfA = watch(keyB, { depositId: existing.deposit_id });
    const probeB = watch(keyB);

    const secret = client(g, onramp1.client_secret);
    const secretOtherOnramp = watch(secret, { onrampId: onramp2.onramp_id });
    const secretOtherDeposit = watch(secret, { depositId: onSecond.deposit_id });
    const secretUnknown = watch(secret, { depositId: 'dep_01KUNKNOWN00000000000000000' });
    const secretOwnDeposit = watch(secret, { depositId: existing.deposit_id });
    const secretOwnOnramp = watch(secret, { onrampId: onramp1.onramp_id });

    // Errors come at once; the others must be registered before the changes below.
    await eventually(async () =>
      secretOtherOnramp.errors.length > 0 && secretOtherDeposit.errors.length > 0
        ? true
        : undefined,
    );
    expect(secretOtherOnramp.errors.map((e) => e.extensions?.code)).toEqual(['FORBIDDEN']);
    expect(secretOtherDeposit.errors.map((e) => e.extensions?.code)).toEqual(['FORBIDDEN']);
    const [warmA, warmB] = await Promise.all([
      transfer(merchantA.api_key, onramp1),
      transfer(merchantB.api_key, onrampB),
    ]);
    await untilAllSaw([probeA, secretOwnOnramp], warmA.deposit_id);
    await untilAllSaw([probeB], warmB.deposit_id);

    const reversed = await request(stack.url, 'POST', '/v1/sandbox/reversals', {
      key: merchantA.api_key,
      body: { bank_reference: existing.bank_reference },
    });
    expect(reversed.body.status).toBe('REVERSED');
    const reversedB = await request(stack.url, 'POST', '/v1/sandbox/reversals', {
      key: merchantB.api_key,
      body: { bank_reference: ofB.bank_reference },
    });
    expect(reversedB.body.status).toBe('REVERSED');
    const onOnramp2 = await transfer(merchantA.api_key, onramp2);
    const onOnramp1 = await transfer(merchantA.api_key, onramp1);
    await Promise.all([
      settled(merchantA.api_key, onOnramp2.deposit_id),
      settled(merchantA.api_key, onOnramp1.deposit_id),
    ]);
    await eventually(async () =>
      byOnramp.of(onOnramp2.deposit_id).length >= 2 &&
      probeA.of(onOnramp1.deposit_id).length >= 2 &&
      probeB.of(ofB.deposit_id).length >= 1 &&
      byDeposit.messages.length >= 1 &&
      secretOwnDeposit.messages.length >= 1
        ? true
        : undefined,
    );
    await pause(750);

    expect(byOnramp.messages.map((m) => [m.depositId, m.status])).toEqual([
      [onOnramp2.deposit_id, 'PENDING_FX'],
      [onOnramp2.deposit_id, 'SETTLED'],
    ]);
    expect(byDeposit.messages.map((m) => [m.depositId, m.status])).toEqual([
      [existing.deposit_id, 'REVERSED'],
    ]);
    expect(secretOwnDeposit.messages.map((m) => [m.depositId, m.status])).toEqual([
      [existing.deposit_id, 'REVERSED'],
    ]);
    expect(secretOwnOnramp.of(onOnramp1.deposit_id)).toEqual(['PENDING_FX', 'SETTLED']);
    expect(secretOwnOnramp.of(onOnramp2.deposit_id)).toEqual([]);
    // Another merchant's ids, and an unknown id: silence, not an error.
    expect(probeB.of(ofB.deposit_id)).toEqual(['REVERSED']);
    for (const w of [aOfB, bOnOnrampOfA, bOnDepositOfA, secretUnknown]) {
      expect(w.messages).toEqual([]);
      expect(w.errors).toEqual([]);
    }
  });

  it('loses and doubles nothing when the gateways’ LISTEN connections drop while deposits change', async () => {
    const o = await onramp(merchantA.api_key);
    const watches = stack.gateways.map((g) => watch(client(g.url, merchantA.api_key)));
    const warm = await transfer(merchantA.api_key, o);
    await untilAllSaw(watches, warm.deposit_id);
    await settled(merchantA.api_key, warm.deposit_id);
    expect(await listenerCount(databaseUrl)).toBe(2);

    await sql(
      databaseUrl,
      `select pg_terminate_backend(pid) from pg_stat_activity
        where application_name = $1 and datname = current_database()`,
      [LISTENER],
    );
    await eventually(async () => ((await listenerCount(databaseUrl)) === 0 ? true : undefined));
    const deposits = await Promise.all(
      ['15000', '16000', '17000'].map((ngn) => transfer(merchantA.api_key, o, ngn)),
    );
    // Their PENDING_FX events committed while no gateway listened (reconnecting takes 1 s).
    expect(await listenerCount(databaseUrl)).toBe(0);
    const ids = deposits.map((d) => d.deposit_id as string);

    await eventually(async () =>
      watches.every((w) => ids.every((id) => w.of(id).length >= 2)) ? true : undefined,
    );
    await pause(750);
    expect(await listenerCount(databaseUrl)).toBe(2);
    for (const w of watches) {
      expect(w.errors).toEqual([]);
      for (const id of ids) expect(w.of(id)).toEqual(['PENDING_FX', 'SETTLED']);
    }
  });

  it('a subscription sent over HTTP POST is a clean error, not a 5xx', async () => {
    const answer = await graphql(stack.url, merchantA.api_key, SUBSCRIPTION);
    expect(answer.status).toBeLessThan(500);
    expect(answer.body.errors?.[0].extensions?.code).toBe('INVALID_PARAMETER');
    expect(answer.body.errors?.[0].message).toMatch(/graphql-ws/);
  });
});

/** A raw graphql-transport-ws connection, so the test can stop reading from it. */
async function rawSubscriber(httpUrl: string, key: string, subscriptions: number) {
  const socket = new WebSocket(`${httpUrl.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
  let received = 0;
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  const acknowledged = new Promise<void>((resolve, reject) => {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string };
      if (message.type === 'connection_ack') resolve();
      if (message.type === 'next') received += 1;
    });
    socket.once('close', (code) => reject(new Error(`closed with ${code}`)));
  });
  await new Promise((resolve) => socket.once('open', resolve));
  socket.send(
    JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${key}` } }),
  );
  await acknowledged;
  for (let id = 1; id <= subscriptions; id += 1) {
    socket.send(
      JSON.stringify({ id: String(id), type: 'subscribe', payload: { query: SUBSCRIPTION } }),
    );
  }
  return { socket, closed, received: () => received };
}

describe('a subscriber that stops reading', () => {
  let stack: Stack;
  let databaseUrl: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  });
  afterAll(() => stack?.stop());

  it('is cut off once far behind, while a subscriber that reads gets every change promptly', async () => {
    const { api_key: key } = await createMerchant(databaseUrl, 'Busy Dashboard Co');
    const rate = await freshRate(stack.url, key);
    const created = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      body: balanceOnramp(rate.rate_id),
    });
    // Over the per-deposit limit: FLAGGED, a status that can go to PENDING_FX and back.
    const deposit = await sandboxTransfer(
      stack.url,
      key,
      created.body.virtual_account.account_number,
      '5000000',
    );
    expect(deposit.status).toBe('FLAGGED');
    // No job runner from here on: nothing else touches the deposit.
    await Promise.all(stack.runners.map((r) => r.stop()));

    const reader = wsClient(stack.url, `Bearer ${key}`);
    const healthy = watch(reader);
    // Twenty subscriptions on one socket: each change is twenty messages on it, so its socket
    // buffers fill after a few hundred changes and its queues after a thousand more.
    const SUBSCRIPTIONS = 20;
    const stuck = await rawSubscriber(stack.url, key, SUBSCRIPTIONS);

    // Status changes through the real trigger, many at a time: PENDING_FX, then FLAGGED again.
    const flips = (n: number) =>
      sql(
        databaseUrl,
        `do $$ begin for i in 1..${n} loop
           update deposits set status = 'PENDING_FX', flag_reason = null where id = '${deposit.deposit_id}';
           update deposits set status = 'FLAGGED', flag_reason = '${deposit.flag_reason}'
            where id = '${deposit.deposit_id}';
         end loop; end $$`,
      );
    await flips(1);
    await eventually(async () =>
      healthy.messages.length >= 2 && stuck.received() >= 2 * SUBSCRIPTIONS ? true : undefined,
    );
    stuck.socket.pause();

    const BATCHES = 12;
    const PER_BATCH = 250; // 500 events a transaction
    const total = 2 + BATCHES * PER_BATCH * 2;
    const started = Date.now();
    for (let i = 0; i < BATCHES; i += 1) await flips(PER_BATCH);
    const committed = Date.now();
    await eventually(async () => (healthy.messages.length >= total ? true : undefined), 20_000);
    const caughtUpMs = Date.now() - committed;

    expect(healthy.errors).toEqual([]);
    expect(healthy.messages).toHaveLength(total);
    expect(healthy.messages.map((m) => m.status)).toEqual(
      Array.from({ length: total }, (_, i) => (i % 2 === 0 ? 'PENDING_FX' : 'FLAGGED')),
    );
    // Promptly: within a few seconds of the last commit, although the other socket stalled.
    expect(caughtUpMs).toBeLessThan(5_000);

    stuck.socket.resume();
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      stuck.closed,
      new Promise((resolve) => (timer = setTimeout(() => resolve('still open'), 10_000))),
    ]);
    clearTimeout(timer);
    // 1013 if it read our close frame in time, 1006 if we had to cut the connection.
    expect([1013, 1006]).toContain(code);
    expect(stuck.received()).toBeLessThan(total * SUBSCRIPTIONS);
    await reader.dispose();
    // Elapsed time for the record (the whole run, including the commits).
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
