import { readdirSync } from 'node:fs';
import { createTestDatabase } from '../support/db';
import { request } from '../support/http';
import { createBalanceOnramp, sandboxTransfer } from '../support/onramps';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';
import { StallingReceiver } from '../support/stalling-receiver';
import { WebhookReceiver } from '../support/webhook-receiver';

const TIMEOUT_MS = 4000;
/** Generous: the runner, the gateway and PostgreSQL share a loaded 2-core machine. */
const MARGIN_MS = 10_000;
const TESTS_PER_ENDPOINT = 12;

/**
 * Finding 3 of issue 32, through the processes: a merchant (or a leaked key) points its ten
 * endpoints at receivers that answer headers and then stall the body (or drip it), and sends
 * 120 test pings. Every connection the job runner opened to them is closed within the timeout
 * of its attempt (the receivers count them; the runner's open descriptors come back down),
 * and meanwhile another merchant's deposit settles and its webhook arrives.
 */
describe('webhook receivers that stall, against the job runner', () => {
  let stack: Stack;
  let attacker: string;
  let victim: string;
  const stalling = Array.from(
    { length: 10 },
    (_, i) => new StallingReceiver(i % 2 === 0 ? 'headers-then-stall' : 'drip'),
  );
  const healthy = new WebhookReceiver();

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: {
        RATE_LIMIT_PER_MINUTE: '100000',
        WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        WEBHOOK_TEST_AND_REPLAY_PER_HOUR: '100000',
      },
    });
    attacker = (await createMerchant(databaseUrl, 'Stalling Co')).api_key;
    victim = (await createMerchant(databaseUrl, 'Victim Co')).api_key;
    for (const r of stalling) await r.start();
    await healthy.start();
  });
  afterAll(async () => {
    await stack?.stop();
    for (const r of stalling) await r.stop();
    await healthy.stop();
  });

  const runnerDescriptors = () => readdirSync(`/proc/${stack.runners[0].child.pid}/fd`).length;
  const connections = () => stalling.flatMap((r) => r.connections);

  it('closes every stalled connection in time while settlement and other webhooks go on', async () => {
    const victimEndpoint = await request(stack.url, 'POST', '/v1/webhook_endpoints', {
      key: victim,
      body: { url: healthy.url, enabled_events: ['deposit.settled'] },
    });
    expect(victimEndpoint.status).toBe(201);
    const endpoints: string[] = [];
    for (const r of stalling) {
      const created = await request(stack.url, 'POST', '/v1/webhook_endpoints', {
        key: attacker,
        body: { url: r.url, enabled_events: ['*'] },
      });
      expect(created.status).toBe(201);
      endpoints.push(created.body.id);
    }
    const before = runnerDescriptors();

    const pings = endpoints.flatMap((id) =>
      Array.from({ length: TESTS_PER_ENDPOINT }, () =>
        request(stack.url, 'POST', `/v1/webhook_endpoints/${id}/test`, { key: attacker }),
      ),
    );
    expect(new Set((await Promise.all(pings)).map((p) => p.status))).toEqual(new Set([200]));
    const total = endpoints.length * TESTS_PER_ENDPOINT;
    await eventually(async () => connections().length >= total || undefined, 60_000);

    // Settlement and another merchant's webhooks do not wait for the stalled receivers.
    const onramp = await createBalanceOnramp(stack.url, victim);
    const deposit = await sandboxTransfer(
      stack.url,
      victim,
      onramp.virtual_account.account_number,
      '15000',
    );
    const settled = await eventually(async () => {
      const envelope = healthy
        .envelopes()
        .find((e) => e.event === 'deposit.settled' && e.data.deposit_id === deposit.deposit_id);
      return envelope;
    }, 60_000);
    expect(settled.data.status).toBe('SETTLED');

    // Each connection is closed within the timeout of its attempt (which began before the
    // receiver accepted it), as the receivers see it.
    const lastAccepted = Math.max(...connections().map((c) => c.acceptedAt));
    await eventually(
      async () => connections().every((c) => c.closedAt !== null) || undefined,
      Math.max(1000, lastAccepted + TIMEOUT_MS + MARGIN_MS - Date.now()),
    ).catch(() => undefined);
    expect(connections()).toHaveLength(total);
    for (const r of stalling) expect(await r.open()).toBe(0);
    for (const c of connections()) {
      expect(c.closedAt).not.toBeNull();
      expect(c.closedAt! - c.acceptedAt).toBeLessThanOrEqual(TIMEOUT_MS + MARGIN_MS);
    }
    // The runner holds no descriptor for them any more (a few may be its database pool's).
    expect(runnerDescriptors()).toBeLessThanOrEqual(before + 10);

    // The attempts are recorded with the status the receivers answered.
    const recorded = await eventually(async () => {
      const page = await request(
        stack.url,
        'GET',
        `/v1/webhook_endpoints/${endpoints[0]}/deliveries?per_page=100`,
        { key: attacker },
      );
      const all = page.body.deliveries as Array<{ status: string; attempts: unknown[] }>;
      return all.length === TESTS_PER_ENDPOINT && all.every((d) => d.status !== 'PENDING')
        ? all
        : undefined;
    }, 30_000);
    for (const d of recorded) {
      expect(d).toMatchObject({ status: 'SUCCEEDED' });
      expect(d.attempts).toEqual([expect.objectContaining({ status_code: 200, error: null })]);
    }
  });
});
