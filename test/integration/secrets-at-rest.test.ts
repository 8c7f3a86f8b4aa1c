import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { keyId, parseKey, SecretBox, SecretDecryptError } from '../../src/crypto/secret-box';
import { sealContext } from '../../src/system/idempotency.service';
import { createTestDatabase, openTestOrm } from '../support/db';
import { onrampCli } from '../support/stack';

const newKey = () => randomBytes(32).toString('base64');
const idOf = (key: string) => keyId(parseKey(key)!);
const HOOK = 'https://hooks.example.com/onramp';

interface EndpointRow {
  secret: string;
  previous_secret: string | null;
}

/** Webhook secrets and idempotent responses sealed at rest, key rotation and re-encryption. */
describe('secrets at rest (real PostgreSQL)', () => {
  let orm: MikroORM;
  let databaseUrl: string;
  const clock = new ManualClock('2026-06-01T09:00:00Z');
  const first = newKey();
  const second = newKey();
  // The endpoint's host is a documentation name: treat it as public, as a resolver would a
  // real one (this file is about what is stored, not where webhooks may go).
  const servicesWith = (env: Record<string, string>): Services =>
    createServices(loadConfig(env), clock, { resolvesToPublicOnly: async () => true });

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    orm = await openTestOrm(databaseUrl);
  });
  afterAll(() => orm.close());

  const sql = <T>(query: string, params: unknown[] = []) =>
    orm.em.fork().getConnection().execute<T[]>(query, params);
  const endpointRow = async (merchantId: string) =>
    (
      await sql<EndpointRow>(
        'select secret, previous_secret from webhook_endpoints where merchant_id = ?',
        [merchantId],
      )
    )[0];

  async function merchantWithEndpoint(services: Services) {
    const merchant = await services.merchants.create(orm.em.fork(), 'Sealed Co');
    const endpoint = await services.webhookEndpoints.set(orm.em.fork(), merchant.id, HOOK);
    return { merchantId: merchant.id, secret: endpoint.secret };
  }

  it('stores webhook secrets sealed, current and previous, and shows them opened', async () => {
    const services = servicesWith({ ENCRYPTION_KEY: first });
    const { merchantId, secret } = await merchantWithEndpoint(services);
    expect(secret).toMatch(/^whsec_/);
    const stored = await endpointRow(merchantId);
    expect(stored.secret).not.toContain(secret);
    expect(stored.secret).not.toContain('whsec_');
    expect(stored.secret).toMatch(new RegExp(`^enc:v1:${idOf(first)}:`));

    const rotated = await services.webhookEndpoints.rotate(orm.em.fork(), merchantId);
    expect(rotated.previousSecret).toBe(secret);
    const after = await endpointRow(merchantId);
    expect(JSON.stringify(after)).not.toMatch(/whsec_/);
    expect(after.previous_secret).toBe(stored.secret);
    expect((await services.webhookEndpoints.get(orm.em.fork(), merchantId))!.secret).toBe(
      rotated.secret,
    );
  });

  it('binds a sealed secret to its merchant: copied into another row it does not open', async () => {
    const services = servicesWith({ ENCRYPTION_KEY: first });
    const a = await merchantWithEndpoint(services);
    const b = await merchantWithEndpoint(services);
    await sql('update webhook_endpoints set secret = ? where merchant_id = ?', [
      (await endpointRow(a.merchantId)).secret,
      b.merchantId,
    ]);
    await expect(services.webhookEndpoints.get(orm.em.fork(), b.merchantId)).rejects.toThrow(
      SecretDecryptError,
    );
    // The later tests re-encrypt every row: leave no row that cannot open.
    await sql('delete from webhook_endpoints where merchant_id = ?', [b.merchantId]);
  });

  it('refuses a plaintext secret where a sealed one is expected; reencrypt seals it', async () => {
    const services = servicesWith({ ENCRYPTION_KEY: first });
    const { merchantId } = await merchantWithEndpoint(services);
    // A value planted in the row (or left from before encryption at rest): no prefix, no
    // context binding. It must not sign anything.
    const planted = `whsec_${randomBytes(32).toString('base64')}`;
    await sql('update webhook_endpoints set secret = ? where merchant_id = ?', [
      planted,
      merchantId,
    ]);
    await expect(services.webhookEndpoints.get(orm.em.fork(), merchantId)).rejects.toThrow(
      /not sealed/,
    );
    await expect(services.webhookEndpoints.set(orm.em.fork(), merchantId, HOOK)).rejects.toThrow(
      SecretDecryptError,
    );
    expect((await endpointRow(merchantId)).secret).toBe(planted);
    // A stored idempotent answer that is not sealed is refused too, not replayed.
    // Keys live on the database's clock (issue 32), so the planted one is stamped by it too.
    await sql(
      `insert into idempotency_keys (merchant_id, key, method, path, request_hash, state,
         response_status, response_body, response_sealed, created_at, expires_at)
       values (?, 'planted', 'POST', '/v1/onramp', 'h', 'COMPLETED', 201, null, ?, now(),
         now() + interval '1 hour')`,
      [merchantId, '{"client_secret":"oc_planted"}'],
    );
    await expect(
      services.idempotency.begin(orm.em.fork(), {
        merchantId,
        key: 'planted',
        method: 'POST',
        path: '/v1/onramp',
        requestHash: 'h',
      }),
    ).rejects.toThrow(/not sealed/);
    await sql('delete from idempotency_keys where key = ?', ['planted']);

    // The operator's command is the one path that takes a plaintext from before: it seals it.
    await onrampCli(databaseUrl, ['secrets', 'reencrypt', '--json'], { ENCRYPTION_KEY: first });
    expect((await endpointRow(merchantId)).secret).toMatch(/^enc:v1:/);
    expect((await services.webhookEndpoints.get(orm.em.fork(), merchantId))!.secret).toBe(planted);
  });

  it('opens values of ENCRYPTION_KEY_PREVIOUS; reencrypt moves everything to the current key', async () => {
    const before = servicesWith({ ENCRYPTION_KEY: first });
    const { merchantId, secret } = await merchantWithEndpoint(before);
    await before.webhookEndpoints.rotate(orm.em.fork(), merchantId);
    const rotated = (await before.webhookEndpoints.get(orm.em.fork(), merchantId))!;
    const legacyEndpoint = await merchantWithEndpoint(before);
    const plaintext = `whsec_${randomBytes(32).toString('base64')}`;
    await sql('update webhook_endpoints set secret = ? where merchant_id = ?', [
      plaintext,
      legacyEndpoint.merchantId,
    ]);
    // Stored responses: one sealed under the old key, one plaintext jsonb row from before.
    const response = '{"client_secret":"oc_abcdefghijklmnopqrstuvwx","id":"onr_1"}';
    const oldBox = new SecretBox(parseKey(first)!);
    // Stamped by the database's clock, as the keys' 24 h are measured by it.
    const insertKey = `insert into idempotency_keys (merchant_id, key, method, path, request_hash,
        state, response_status, response_body, response_sealed, created_at, expires_at)
      values (?, ?, 'POST', '/v1/onramp', 'h', 'COMPLETED', 201, ?::jsonb, ?, now(),
              now() + interval '1 hour')`;
    await sql(insertKey, [
      merchantId,
      'sealed',
      null,
      oldBox.seal(response, sealContext(merchantId, 'sealed')),
    ]);
    await sql(insertKey, [merchantId, 'legacy', response, null]);

    const during = servicesWith({ ENCRYPTION_KEY: second, ENCRYPTION_KEY_PREVIOUS: first });
    const opened = (await during.webhookEndpoints.get(orm.em.fork(), merchantId))!;
    expect(opened.secret).toBe(rotated.secret);
    expect(opened.previousSecret).toBe(secret);

    const report = await onrampCli(databaseUrl, ['secrets', 'reencrypt', '--json'], {
      ENCRYPTION_KEY: second,
      ENCRYPTION_KEY_PREVIOUS: first,
    });
    expect(report).toMatchObject({ key_id: idOf(second) });
    expect((report as { webhook_endpoints: number }).webhook_endpoints).toBeGreaterThanOrEqual(2);
    expect(report).toMatchObject({ idempotency_responses: 2 });

    const current = new RegExp(`^enc:v1:${idOf(second)}:`);
    for (const row of await sql<EndpointRow>(
      'select secret, previous_secret from webhook_endpoints',
    )) {
      expect(row.secret).toMatch(current);
      if (row.previous_secret !== null) expect(row.previous_secret).toMatch(current);
    }
    const keys = await sql<{ response_body: unknown; response_sealed: string }>(
      'select response_body, response_sealed from idempotency_keys where merchant_id = ?',
      [merchantId],
    );
    expect(keys).toHaveLength(2);
    for (const row of keys) {
      expect(row.response_body).toBeNull();
      expect(row.response_sealed).toMatch(current);
      expect(row.response_sealed).not.toContain('oc_');
    }

    // The old key can go now: the new one alone opens everything.
    const afterwards = servicesWith({ ENCRYPTION_KEY: second });
    const final = (await afterwards.webhookEndpoints.get(orm.em.fork(), merchantId))!;
    expect([final.secret, final.previousSecret]).toEqual([rotated.secret, secret]);
    expect(
      (await afterwards.webhookEndpoints.get(orm.em.fork(), legacyEndpoint.merchantId))!.secret,
    ).toBe(plaintext);
    const replay = await afterwards.idempotency.begin(orm.em.fork(), {
      merchantId,
      key: 'legacy',
      method: 'POST',
      path: '/v1/onramp',
      requestHash: 'h',
    });
    expect(replay).toMatchObject({ kind: 'replay', status: 201 });
    expect(JSON.parse((replay as { text: string }).text)).toEqual(JSON.parse(response));

    // Nothing left to do: a second run rewrites nothing.
    expect(
      await onrampCli(databaseUrl, ['secrets', 'reencrypt', '--json'], { ENCRYPTION_KEY: second }),
    ).toEqual({
      key_id: idOf(second),
      webhook_endpoints: 0,
      idempotency_responses: 0,
      onramp_customers: 0,
    });
  });

  it('fails loudly under a wrong key, naming the key the value needs', async () => {
    const services = servicesWith({ ENCRYPTION_KEY: second });
    const { merchantId } = await merchantWithEndpoint(services);
    const wrong = servicesWith({ ENCRYPTION_KEY: newKey() });
    await expect(wrong.webhookEndpoints.get(orm.em.fork(), merchantId)).rejects.toThrow(
      new RegExp(`sealed under key ${idOf(second)}, which is neither ENCRYPTION_KEY`),
    );
    await expect(
      onrampCli(databaseUrl, ['secrets', 'reencrypt', '--json'], { ENCRYPTION_KEY: newKey() }),
    ).rejects.toThrow(/neither ENCRYPTION_KEY nor listed in ENCRYPTION_KEY_PREVIOUS/);
    // A tampered value does not open either (GCM authenticates every byte).
    const stored = (await endpointRow(merchantId)).secret;
    const flipped = stored.slice(0, -4) + (stored.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    await sql('update webhook_endpoints set secret = ? where merchant_id = ?', [
      flipped,
      merchantId,
    ]);
    await expect(services.webhookEndpoints.get(orm.em.fork(), merchantId)).rejects.toThrow(
      /does not authenticate/,
    );
  });
});
