import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { DomainError, ErrorCode } from '../../src/domain/errors';
import { parseSanctionsList } from '../../src/domain/sanctions-list';
import { submissionOfText, type ListSubmission } from '../../src/sanctions';
import { createTestDatabase, openTestOrm } from '../support/db';
import { TEST_ENCRYPTION_KEY } from '../support/stack';

const LISTED = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const CLEAN = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const nthAddress = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const listText = (date: string | null, addresses: string[]) =>
  `${date ? `# date: ${date}\n` : ''}${addresses.join('\n')}\n`;

describe('the sanctions list in force (real PostgreSQL)', () => {
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock('2026-11-29T09:00:00Z');
    services = createServices(
      loadConfig({ ONRAMP_ENV: 'sandbox', ENCRYPTION_KEY: TEST_ENCRYPTION_KEY }),
      clock,
    );
  });
  afterAll(() => orm?.close());

  const em = () => orm.em.fork();
  const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
    orm.em.fork().getConnection().execute<T[]>(text, params);
  const inForce = async () =>
    (
      await sql<{ list_date: string | null; count: number }>(
        `select (select list_date::text from sanctions_list) as list_date,
                (select count(*)::int from sanctioned_addresses) as count`,
      )
    )[0];
  const replace = (text: string, description = 'test') =>
    services.sanctions.replace(em(), 'cli:test', submissionOfText(text, description));
  const auditOf = (action: string) =>
    sql<{ actor: string; target_id: string; after: Record<string, unknown> }>(
      'select actor, target_id, after from audit_log where action = ? order by created_at, id',
      [action],
    );

  it('a replacement is atomic: a reader sees the old list whole or the new one whole', async () => {
    await replace(listText('2024-01-01', [LISTED, CLEAN]));
    expect(await inForce()).toEqual({ list_date: '2024-01-01', count: 2 });
    // 99,999 addresses and the date line: the maximum, long enough to be watched going in.
    const big = Array.from({ length: 99_999 }, (_, n) => nthAddress(n + 1));
    const seen = new Set<string>();
    let done = false;
    const replacing = replace(listText('2024-02-02', big)).finally(() => (done = true));
    while (!done) {
      const row = await inForce();
      seen.add(`${row.list_date} ${row.count}`);
    }
    await replacing;
    const after = await inForce();
    seen.add(`${after.list_date} ${after.count}`);
    // Both states were seen, and nothing in between (no half-deleted or half-inserted list).
    expect([...seen].sort()).toEqual(['2024-01-01 2', '2024-02-02 99999']);
  });

  it('a replacement that fails half-way leaves the list in force as it was', async () => {
    await replace(listText('2024-03-03', [LISTED]));
    // Past the parser (which would refuse it): the database's own check stops the insert.
    const broken: ListSubmission = {
      list: { addresses: [CLEAN.toLowerCase(), 'not an address'], listDate: '2024-04-04' },
      contentSha256: 'f'.repeat(64),
      description: 'broken',
    };
    await expect(services.sanctions.replace(em(), 'cli:test', broken)).rejects.toThrow();
    expect(await inForce()).toEqual({ list_date: '2024-03-03', count: 1 });
    expect((await services.sanctions.status(em()))?.description).toBe('test');
  });

  it("the list's date is the file's, else the day of the update; the status says it", async () => {
    const dated = await replace(listText('2024-09-27', [LISTED]), 'dated.txt');
    expect(dated).toMatchObject({ listDate: '2024-09-27', addressCount: 1, origin: 'operator' });
    const undated = await replace(listText(null, [LISTED, CLEAN]), 'undated.txt');
    expect(undated.listDate).toBe('2026-11-29');
    expect(await services.sanctions.status(em())).toMatchObject({
      listDate: '2026-11-29',
      addressCount: 2,
      origin: 'operator',
      description: 'undated.txt',
      installedBy: 'cli:test',
    });
    const [, latest] = (await auditOf('sanctions.replace_list')).slice(-2);
    expect(latest.after).toMatchObject({ list_date: '2026-11-29', address_count: 2 });
    expect(latest.actor).toBe('cli:test');
  });

  it('a start installs its list unless an operator update is in force or it is not newer', async () => {
    const snapshot = (date: string, addresses: string[]) =>
      submissionOfText(listText(date, addresses), 'shipped snapshot');
    // An operator's update is in force (the test above): a start leaves it.
    const kept = await services.sanctions.installAtStartup(em(), snapshot('2030-01-01', [CLEAN]));
    expect(kept).toMatchObject({ installed: false, inForce: { origin: 'operator' } });
    await sql('delete from sanctioned_addresses');
    await sql('delete from sanctions_list');
    const first = await services.sanctions.installAtStartup(em(), snapshot('2024-09-27', [LISTED]));
    expect(first).toMatchObject({ installed: true, inForce: { listDate: '2024-09-27' } });
    const again = await services.sanctions.installAtStartup(em(), snapshot('2024-09-27', [LISTED]));
    expect(again.installed).toBe(false);
    const older = await services.sanctions.installAtStartup(em(), snapshot('2024-01-01', [CLEAN]));
    expect(older.installed).toBe(false);
    const newer = await services.sanctions.installAtStartup(em(), snapshot('2025-01-01', [CLEAN]));
    expect(newer).toMatchObject({ installed: true, inForce: { listDate: '2025-01-01' } });
    expect(await inForce()).toEqual({ list_date: '2025-01-01', count: 1 });
  });

  it('refuses a listed address in any letter case, auditing the refusal with the list date', async () => {
    await replace(listText('2024-09-27', [LISTED.toLowerCase()]));
    const forms = [LISTED, LISTED.toLowerCase(), `0x${LISTED.slice(2).toUpperCase()}`];
    for (const address of forms) {
      const refused = services.sanctions.refuseListed(em(), {
        merchantId: 'mer_test',
        place: 'withdrawal',
        field: 'destination_address',
        address,
        chain: 'BASE',
      });
      await expect(refused).rejects.toMatchObject({ code: ErrorCode.AddressSanctioned });
      await expect(refused).rejects.toBeInstanceOf(DomainError);
    }
    await expect(
      services.sanctions.refuseListed(em(), {
        merchantId: 'mer_test',
        place: 'withdrawal',
        field: 'destination_address',
        address: CLEAN,
        chain: 'BASE',
      }),
    ).resolves.toBeUndefined();
    const refusals = await auditOf('sanctions.refuse');
    expect(refusals).toHaveLength(3);
    for (const entry of refusals) {
      expect(entry).toMatchObject({ target_id: 'mer_test' });
      expect(entry.after).toMatchObject({ place: 'withdrawal', list_date: '2024-09-27' });
    }
  });

  it('the parsed list and the stored one agree address for address', async () => {
    const text = listText('2024-09-27', [LISTED, CLEAN.toUpperCase().replace('0X', '0x')]);
    await replace(text);
    const stored = await sql<{ address: string }>(
      'select address from sanctioned_addresses order by address',
    );
    expect(stored.map((r) => r.address)).toEqual(parseSanctionsList(text).addresses.sort());
  });
});
