import { readFileSync } from 'node:fs';
import { privateKeyToAccount } from 'viem/accounts';
import { gatewayEnvironment } from '../../src/crypto/process-secrets';
import { LOCAL_HOT_WALLET_PRIVATE_KEY } from '../../src/embedded/local-chains';
import { startTestChains, type TestChains } from '../support/chains';
import { createTestDatabase } from '../support/db';
import { graphql, request } from '../support/http';
import { autoWithdrawOnramp, balanceOnramp, freshRate, sandboxTransfer } from '../support/onramps';
import { sql } from '../support/sql';
import {
  baseEnv,
  createMerchant,
  eventually,
  startGateway,
  startRunner,
  type Gateway,
  type RunningProcess,
} from '../support/stack';

/**
 * The gateway as `npm start` runs it: without the hot-wallet key (the job runner alone signs
 * payouts), and client secrets that a merchant can revoke, over real HTTP.
 */
describe('secrets through the processes', () => {
  let chains: TestChains;
  let gateway: Gateway;
  let runner: RunningProcess;
  let databaseUrl: string;
  let key: string;

  beforeAll(async () => {
    chains = await startTestChains();
    databaseUrl = await createTestDatabase();
    const env = baseEnv(databaseUrl, { ...chains.env, PAYOUT_POLL_MS: '300' });
    expect(env.HOT_WALLET_PRIVATE_KEY).toBe(LOCAL_HOT_WALLET_PRIVATE_KEY);
    [gateway, runner] = await Promise.all([
      startGateway(gatewayEnvironment(env)),
      startRunner(env),
    ]);
    key = (await createMerchant(databaseUrl, 'Secrets Co')).api_key;
  });
  afterAll(async () => {
    await Promise.all([gateway?.stop(), runner?.stop()]);
    await chains?.stop();
  });

  it('runs the gateway without the hot-wallet key; the job runner still pays out', async () => {
    // What the operating system holds for the gateway process: its whole environment.
    const environ = readFileSync(`/proc/${gateway.child.pid}/environ`, 'utf8').split('\0');
    expect(environ.some((entry) => entry.startsWith('HOT_WALLET_PRIVATE_KEY='))).toBe(false);
    expect(environ.join('\n')).not.toContain(LOCAL_HOT_WALLET_PRIVATE_KEY.slice(2));
    expect(environ).toContain(
      `HOT_WALLET_ADDRESS=${privateKeyToAccount(LOCAL_HOT_WALLET_PRIVATE_KEY).address}`,
    );

    expect((await request(gateway.url, 'GET', '/health')).status).toBe(200);
    const rate = await freshRate(gateway.url, key, 'USDC');
    const created = await request(gateway.url, 'POST', '/v1/onramp', {
      key,
      body: autoWithdrawOnramp(rate.rate_id),
    });
    expect(created.status).toBe(201);
    const deposit = await sandboxTransfer(
      gateway.url,
      key,
      created.body.virtual_account.account_number,
      '15000',
    );
    const settled = await eventually(async () => {
      const now = await request(gateway.url, 'GET', `/v1/deposits/${deposit.deposit_id}`, { key });
      return now.body.status === 'SETTLED' ? now.body : undefined;
    }, 30_000);
    expect(settled.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(
      (await graphql(gateway.url, key, '{ merchant { id } }')).body.data?.merchant,
    ).toBeTruthy();
  });

  it('refuses to run a gateway handed the hot-wallet key (it would stay in /proc/<pid>/environ)', async () => {
    // As a shared environment block (compose's anchor, `npm run gateway` with a full .env) does.
    const outcome = await startGateway(
      baseEnv(databaseUrl, { ...chains.env, HOT_WALLET_PRIVATE_KEY: LOCAL_HOT_WALLET_PRIVATE_KEY }),
    ).then(
      async (started) => {
        const environ = readFileSync(`/proc/${started.child.pid}/environ`, 'utf8');
        await started.stop();
        return environ.includes(LOCAL_HOT_WALLET_PRIVATE_KEY.slice(2))
          ? 'running, with the key in its environ'
          : 'running';
      },
      (error: Error) => error.message,
    );
    expect(outcome).toMatch(/exited with 78[\s\S]*HOT_WALLET_PRIVATE_KEY: set for the gateway/);
  });

  async function onrampWithSecret(apiKey: string) {
    const rate = await freshRate(gateway.url, apiKey);
    const created = await request(gateway.url, 'POST', '/v1/onramp', {
      key: apiKey,
      body: balanceOnramp(rate.rate_id),
      headers: { 'idempotency-key': `create-${rate.rate_id}-${Math.random()}` },
    });
    expect(created.status).toBe(201);
    return { id: created.body.onramp_id as string, secret: created.body.client_secret as string };
  }

  it('revokes a client secret over REST: 401 after, idempotent, 404 for another merchant', async () => {
    const onramp = await onrampWithSecret(key);
    const read = () =>
      request(gateway.url, 'GET', `/v1/onramp/${onramp.id}`, { key: onramp.secret });
    expect((await read()).status).toBe(200);

    const other = (await createMerchant(databaseUrl, 'Other Co')).api_key;
    const foreign = await request(
      gateway.url,
      'POST',
      `/v1/onramp/${onramp.id}/revoke_client_secret`,
      { key: other },
    );
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
    expect((await read()).status).toBe(200);

    for (let i = 0; i < 2; i++) {
      const revoked = await request(
        gateway.url,
        'POST',
        `/v1/onramp/${onramp.id}/revoke_client_secret`,
        { key },
      );
      expect(revoked.status).toBe(200);
      expect(revoked.body.onramp_id).toBe(onramp.id);
      expect(revoked.body.client_secret).toBeUndefined();
    }
    const refused = await read();
    expect(refused.status).toBe(401);
    expect(refused.body.error).toEqual({
      code: 'unauthorized',
      message: 'This client secret has been revoked',
    });
    // A client secret cannot revoke anything itself.
    const bySecret = await request(
      gateway.url,
      'POST',
      `/v1/onramp/${onramp.id}/revoke_client_secret`,
      { key: onramp.secret },
    );
    expect(bySecret.status).toBe(401);
  });

  it('revokes a client secret over GraphQL', async () => {
    const onramp = await onrampWithSecret(key);
    const mutation = 'mutation($id: ID!) { revokeClientSecret(onrampId: $id) { id status } }';
    const response = await graphql(gateway.url, key, mutation, { id: onramp.id });
    expect(response.body.data).toEqual({
      revokeClientSecret: { id: onramp.id, status: 'ACTIVE' },
    });
    const query = await graphql(
      gateway.url,
      onramp.secret,
      'query($id: ID!) { onramp(id: $id) { id } }',
      { id: onramp.id },
    );
    expect(query.status).toBe(401);
  });

  it('keeps no client secret in plaintext in stored idempotent responses', async () => {
    const onramp = await onrampWithSecret(key);
    const rows = await sql<{ response_sealed: string | null; response_body: unknown }>(
      databaseUrl,
      "select response_sealed, response_body from idempotency_keys where path = '/v1/onramp'",
    );
    expect(rows.length).toBeGreaterThan(0);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(onramp.secret);
    expect(stored).not.toMatch(/oc_/);
    for (const row of rows) expect(row.response_sealed).toMatch(/^enc:v1:/);
  });
});
