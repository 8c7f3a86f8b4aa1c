import type { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import pino from 'pino';
import { ManualClock } from '../../src/clock';
import { AuthService } from '../../src/merchants/auth.service';
import { MerchantService } from '../../src/merchants/merchant.service';
import type { ApiKeyRevocations } from '../../src/merchants/api-key-revocations';
import { GATEWAY_LISTEN_APPLICATION_NAME, NotificationHub } from '../../src/db/notification-hub';
import { KeyEnvironment } from '../../src/domain/key-environment';
import { DomainError } from '../../src/domain/errors';
import { createTestDatabase, openTestOrm } from '../support/db';

/** Resolves once `check` holds, polling every 10 ms; the time it took, in ms. */
async function within(ms: number, check: () => Promise<boolean> | boolean): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return performance.now() - started;
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * The gateway's in-memory API key lookups against a real PostgreSQL and its real NOTIFY:
 * served from memory while the revocation LISTEN is up, dropped on a revocation at once,
 * off while the LISTEN is down, and never older than the TTL even when a notice is lost.
 */
describe('API key cache (real PostgreSQL, real LISTEN)', () => {
  let orm: MikroORM;
  let databaseUrl: string;
  let admin: Client;
  const clock = new ManualClock('2026-05-01T10:00:00Z');
  const merchants = new MerchantService(clock);
  const auth = new AuthService(KeyEnvironment.Sandbox, clock, 86_400, 1_000);
  let watch: ApiKeyRevocations;
  let notifications: NotificationHub;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    orm = await openTestOrm(databaseUrl);
    admin = new Client({ connectionString: databaseUrl });
    await admin.connect();
    // The gateway's one LISTEN connection, as src/gateway.ts makes it.
    notifications = new NotificationHub({
      databaseUrl,
      applicationName: GATEWAY_LISTEN_APPLICATION_NAME,
      log: pino({ level: 'silent' }),
    });
    await notifications.start();
    watch = await auth.watchKeyRevocations(notifications);
  });
  afterAll(async () => {
    await watch?.stop();
    await notifications?.stop();
    await admin?.end();
    await orm?.close();
  });

  async function newKey(): Promise<{ keyId: string; apiKey: string }> {
    const merchant = await merchants.create(orm.em.fork(), 'Cache Co');
    return merchants.issueKey(orm.em.fork(), merchant.id, KeyEnvironment.Sandbox);
  }

  const accepted = (apiKey: string) =>
    auth.authenticate(orm.em.fork(), `Bearer ${apiKey}`).then(
      () => true,
      (error: unknown) => {
        if (error instanceof DomainError && error.code === 'unauthorized') return false;
        throw error;
      },
    );

  /** An em whose every use fails: a lookup through it proves the answer came from memory. */
  const noDatabase = () =>
    new Proxy(orm.em, {
      get: () => {
        throw new Error('the database was used');
      },
    });

  it('answers a known key from memory while the LISTEN is up', async () => {
    const { apiKey, keyId } = await newKey();
    await within(2_000, () => auth.keyCache.active);
    await expect(accepted(apiKey)).resolves.toBe(true);
    const principal = await auth.authenticate(noDatabase(), `Bearer ${apiKey}`);
    expect(principal).toMatchObject({ kind: 'secret_key', keyId });
  });

  it('refuses a key revoked in another session within a second (the NOTIFY)', async () => {
    const { apiKey, keyId } = await newKey();
    await expect(accepted(apiKey)).resolves.toBe(true);
    await admin.query('update api_keys set revoked_at = now() where id = $1', [keyId]);
    const took = await within(1_000, async () => !(await accepted(apiKey)));
    // The notice, not the TTL: well under the 1,000 ms an entry may live.
    expect(took).toBeLessThan(800);
  });

  it('refuses a revoked key within the TTL even when its notice is lost', async () => {
    const { apiKey, keyId } = await newKey();
    await expect(accepted(apiKey)).resolves.toBe(true);
    // Triggers do not fire in replica mode: the revocation sends no NOTIFY at all.
    await admin.query('begin');
    await admin.query("set local session_replication_role = 'replica'");
    await admin.query('update api_keys set revoked_at = now() where id = $1', [keyId]);
    await admin.query('commit');
    await expect(accepted(apiKey)).resolves.toBe(true); // still the cached row
    const took = await within(1_500, async () => !(await accepted(apiKey)));
    expect(took).toBeLessThanOrEqual(1_100);
  });

  it('serves nothing from memory once the LISTEN connection drops, until it is back', async () => {
    const { apiKey, keyId } = await newKey();
    await expect(accepted(apiKey)).resolves.toBe(true);
    const terminated = await admin.query(
      // This database's listener only: other test files' processes share the server.
      `select pg_terminate_backend(pid) from pg_stat_activity
        where application_name = $1 and datname = current_database()`,
      [GATEWAY_LISTEN_APPLICATION_NAME],
    );
    expect(terminated.rowCount).toBe(1);
    await within(1_000, () => !auth.keyCache.active);
    expect(auth.keyCache.size).toBe(0);
    // Revoked while nobody listens: no notice reaches this process, yet the next lookup refuses.
    await admin.query('update api_keys set revoked_at = now() where id = $1', [keyId]);
    await expect(accepted(apiKey)).resolves.toBe(false);
    // The listener reconnects by itself (1 s) and the cache comes back on.
    await within(5_000, () => auth.keyCache.active);
    await expect(accepted(apiKey)).resolves.toBe(false);
  });

  it('keeps unknown keys out of memory', async () => {
    const before = auth.keyCache.size;
    for (let i = 0; i < 20; i += 1) {
      await expect(
        accepted(`sk_test_${'x'.repeat(30)}${String(i).padStart(4, '0')}`),
      ).resolves.toBe(false);
    }
    expect(auth.keyCache.size).toBe(before);
  });
});
