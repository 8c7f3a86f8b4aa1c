import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, environmentOf, type Services } from '../../src/container';
import { createTestDatabase, openTestOrm } from '../support/db';

describe('dashboard sessions (real PostgreSQL, moved clock)', () => {
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  let apiKey: string;
  const HOUR = 3_600_000;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock('2026-08-01T09:00:00Z');
    services = createServices(loadConfig({}), clock);
    const merchant = await services.merchants.create(orm.em.fork(), 'Session Co');
    apiKey = (
      await services.merchants.issueKey(orm.em.fork(), merchant.id, environmentOf(services.config))
    ).apiKey;
  });
  afterAll(() => orm.close());

  const sessions = () => services.dashboardSessions;

  it('lasts DASHBOARD_SESSION_SECONDS, needs its CSRF token, and ends on sign-out', async () => {
    const opened = await sessions().open(orm.em.fork(), apiKey);
    const resumed = await sessions().resume(orm.em.fork(), opened.token, opened.csrfToken);
    expect(resumed.principal).toEqual(opened.principal);
    await expect(
      sessions().resume(orm.em.fork(), opened.token, opened.csrfToken.slice(1) + 'x'),
    ).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(sessions().resume(orm.em.fork(), opened.token, '')).rejects.toMatchObject({
      code: 'unauthorized',
    });
    clock.advance(12 * HOUR - 1);
    await sessions().resume(orm.em.fork(), opened.token, null);
    clock.advance(1);
    await expect(sessions().resume(orm.em.fork(), opened.token, null)).rejects.toMatchObject({
      code: 'unauthorized',
    });

    const second = await sessions().open(orm.em.fork(), apiKey);
    await sessions().close(orm.em.fork(), second.token, second.csrfToken);
    await expect(sessions().resume(orm.em.fork(), second.token, null)).rejects.toMatchObject({
      code: 'unauthorized',
    });
  });

  it('prunes sessions a day after they ended, and only those', async () => {
    const live = await sessions().open(orm.em.fork(), apiKey);
    clock.advance(25 * HOUR); // the first test's sessions ended more than a day ago
    const fresh = await sessions().open(orm.em.fork(), apiKey);
    const before = await orm.em
      .fork()
      .getConnection()
      .execute<Array<{ n: string }>>('select count(*) as n from dashboard_sessions');
    expect(Number(before[0].n)).toBe(4);
    expect(await sessions().prune(orm.em.fork())).toBe(2);
    // `live` expired 13 h ago: kept until a day has passed.
    await expect(sessions().resume(orm.em.fork(), live.token, null)).rejects.toMatchObject({
      code: 'unauthorized',
    });
    expect((await sessions().resume(orm.em.fork(), fresh.token, null)).csrfToken).toBe(
      fresh.csrfToken,
    );
    clock.advance(12 * HOUR);
    expect(await sessions().prune(orm.em.fork())).toBe(1);
  });
});
