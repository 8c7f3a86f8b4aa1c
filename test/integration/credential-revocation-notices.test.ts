import type { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, environmentOf, type Services } from '../../src/container';
import { hashSecret } from '../../src/crypto/secret-hash';
import { CREDENTIAL_REVOKED } from '../../src/events/channels';
import { createTestDatabase, openTestOrm } from '../support/db';
import { eventually } from '../support/stack';

/**
 * The database itself tells every gateway when a credential ends (triggers), whichever path
 * ended it: exactly `{"kind":...,"id":...}` on `onramp_credential_revoked`, once, at commit.
 */
describe('credential revocation notices (real PostgreSQL triggers)', () => {
  let orm: MikroORM;
  let services: Services;
  let listener: Client;
  let merchantId: string;
  let databaseUrl: string;
  const notices: string[] = [];
  const HOUR = 3_600_000;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    orm = await openTestOrm(databaseUrl);
    // Real time: the delete trigger compares expiry with the database's clock.
    services = createServices(loadConfig({}), new ManualClock(new Date()));
    merchantId = (await services.merchants.create(orm.em.fork(), 'Notice Co')).id;
    listener = new Client({ connectionString: databaseUrl });
    await listener.connect();
    listener.on('notification', (n) => notices.push(n.payload ?? ''));
    await listener.query(`listen ${CREDENTIAL_REVOKED.name}`);
  });
  afterAll(async () => {
    await listener?.end();
    await orm?.close();
  });

  const issueKey = async () =>
    services.merchants.issueKey(orm.em.fork(), merchantId, environmentOf(services.config));
  const sql = (text: string, params: unknown[] = []) =>
    orm.em.fork().getConnection().execute(text, params);

  /** The notices that arrive after `action`, once `expected` of them did (then a short wait). */
  async function noticesOf(action: () => Promise<unknown>, expected: number): Promise<string[]> {
    notices.length = 0;
    await action();
    if (expected > 0) await eventually(async () => (notices.length >= expected ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    return [...notices];
  }

  it('a key revoked through the operator service: one api_key notice', async () => {
    const key = await issueKey();
    const sent = await noticesOf(
      () => services.operator.revokeKey(orm.em.fork(), 'test', key.keyId),
      1,
    );
    expect(sent).toEqual([`{"kind":"api_key","id":"${key.keyId}"}`]);
    // Touching an already revoked key says nothing new.
    expect(
      await noticesOf(
        () => sql('update api_keys set revoked_at = now() where id = ?', [key.keyId]),
        0,
      ),
    ).toEqual([]);
  });

  it('nothing is sent for a revocation rolled back', async () => {
    const key = await issueKey();
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    const sent = await noticesOf(async () => {
      await db.query('begin');
      await db.query('update api_keys set revoked_at = now() where id = $1', [key.keyId]);
      await db.query('rollback');
    }, 0);
    await db.end();
    expect(sent).toEqual([]);
  });

  it('a dashboard session signed out, or deleted while live: a dashboard_session notice with its token hash', async () => {
    const key = await issueKey();
    const sessions = services.dashboardSessions;
    const first = await sessions.open(orm.em.fork(), key.apiKey);
    expect(
      await noticesOf(() => sessions.close(orm.em.fork(), first.token, first.csrfToken), 1),
    ).toEqual([`{"kind":"dashboard_session","id":"${hashSecret(first.token)}"}`]);
    const second = await sessions.open(orm.em.fork(), key.apiKey);
    expect(
      await noticesOf(
        () =>
          sql('delete from dashboard_sessions where token_hash = ?', [hashSecret(second.token)]),
        1,
      ),
    ).toEqual([`{"kind":"dashboard_session","id":"${hashSecret(second.token)}"}`]);
    // Pruning sessions that ended long ago (here: expired a day ago, or signed out) is no news.
    await sql('update dashboard_sessions set expires_at = ?', [new Date(Date.now() - 25 * HOUR)]);
    expect(await noticesOf(() => sql('delete from dashboard_sessions'), 0)).toEqual([]);
  });
});
