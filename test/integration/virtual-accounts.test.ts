import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { isValidNuban, nubanFor } from '../../src/domain/nuban';
import {
  type AllocatedAccount,
  VirtualAccountService,
} from '../../src/onramps/virtual-account.service';
import { createTestDatabase, openTestOrm } from '../support/db';

const DAY = 86_400_000;
const T0 = Date.UTC(2027, 0, 1);
const EXCLUSION = /virtual_account_not_reused_within_365_days/;
const INSERT_ASSIGNMENT =
  'insert into virtual_account_assignments (account_number, onramp_id, assigned_at) values (?, ?, ?)';

// Reuse is per bank code, so each test works in its own bank and cannot see another's numbers.
describe('virtual account allocation (real PostgreSQL)', () => {
  let orm: MikroORM;
  let clock: ManualClock;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
  });
  afterAll(() => orm.close());

  beforeEach(() => {
    clock = new ManualClock(new Date(T0));
  });

  const run = randomBytes(3).toString('hex');
  let onramps = 0;
  const onrampId = (): string => `onr_${run}_${++onramps}`;

  function service(code: string): VirtualAccountService {
    return new VirtualAccountService(clock, { code, name: `Bank ${code}` });
  }

  function allocate(accounts: VirtualAccountService, id = onrampId()): Promise<AllocatedAccount> {
    return orm.em.fork().transactional((tx) => accounts.allocate(tx, id));
  }

  function release(accounts: VirtualAccountService, id: string): Promise<void> {
    return orm.em.fork().transactional((tx) => accounts.release(tx, id));
  }

  function sql<T = Record<string, unknown>>(query: string, params: unknown[] = []): Promise<T[]> {
    return orm.em.fork().getConnection().execute<T[]>(query, params);
  }

  /** The SQLSTATE of a failed statement, wrapped by MikroORM or not. */
  async function sqlState(promise: Promise<unknown>): Promise<string | undefined> {
    try {
      await promise;
    } catch (e) {
      const err = e as { code?: string; cause?: { code?: string }; previous?: { code?: string } };
      return err.code ?? err.cause?.code ?? err.previous?.code;
    }
    return undefined;
  }

  async function openNumbersOf(bankCode: string): Promise<string[]> {
    const rows = await sql<{ account_number: string }>(
      `select a.account_number from virtual_account_assignments a
         join virtual_accounts va using (account_number)
        where va.bank_code = ? and a.released_at is null`,
      [bankCode],
    );
    return rows.map((r) => r.account_number);
  }

  it('gives 200 concurrent allocations 200 distinct NUBAN-valid numbers', async () => {
    const accounts = service('035');
    const ids = Array.from({ length: 200 }, onrampId);
    const allocated = await Promise.all(ids.map((id) => allocate(accounts, id)));

    const numbers = allocated.map((a) => a.accountNumber);
    expect(new Set(numbers).size).toBe(200);
    for (const number of numbers)
      expect([number, isValidNuban('035', number)]).toEqual([number, true]);
    expect(allocated.every((a) => a.bankCode === '035' && a.bankName === 'Bank 035')).toBe(true);

    const rows = await sql<{ onramp_id: string; account_number: string }>(
      'select onramp_id, account_number from virtual_account_assignments where onramp_id = any(?::text[])',
      [`{${ids.join(',')}}`],
    );
    const stored = new Map(rows.map((r) => [r.onramp_id, r.account_number]));
    expect(ids.map((id) => stored.get(id))).toEqual(numbers);
    expect((await openNumbersOf('035')).sort()).toEqual([...numbers].sort());
  });

  it('never hands out a held number again, even two years on', async () => {
    const accounts = service('044');
    const held = await allocate(accounts);
    const releasedId = onrampId();
    const released = await allocate(accounts, releasedId);
    await release(accounts, releasedId);

    clock.advance(730 * DAY);
    // Reuse is live in this bank (the released number comes back first), yet never the held one.
    const first = await allocate(accounts);
    expect(first.accountNumber).toBe(released.accountNumber);
    const second = await allocate(accounts);
    expect(second.accountNumber).not.toBe(held.accountNumber);
    expect(isValidNuban('044', second.accountNumber)).toBe(true);
    const open = await openNumbersOf('044');
    expect(open.filter((n) => n === held.accountNumber)).toHaveLength(1);
  });

  it('keeps a released number for 365 days, then hands it out again', async () => {
    const accounts = service('050');
    const firstId = onrampId();
    const first = await allocate(accounts, firstId);
    const releasedAt = T0 + 3 * DAY;
    clock.set(new Date(releasedAt));
    await release(accounts, firstId);

    const [row] = await sql<{ released_at: Date; cooldown_until: Date }>(
      'select released_at, cooldown_until from virtual_account_assignments where onramp_id = ?',
      [firstId],
    );
    expect(new Date(row.released_at).getTime()).toBe(releasedAt);
    expect(new Date(row.cooldown_until).getTime()).toBe(releasedAt + 365 * DAY);

    // Each early allocation is released at once, so only `first` can become reusable in time.
    for (const at of [releasedAt + 364 * DAY, releasedAt + 365 * DAY - 1]) {
      clock.set(new Date(at));
      const id = onrampId();
      const early = await allocate(accounts, id);
      expect(early.accountNumber).not.toBe(first.accountNumber);
      await release(accounts, id);
    }

    clock.set(new Date(releasedAt + 365 * DAY));
    const again = await allocate(accounts);
    expect(again.accountNumber).toBe(first.accountNumber);
  });

  it('reuses the number that has been free the longest', async () => {
    const accounts = service('051');
    const ids = [onrampId(), onrampId(), onrampId()];
    const numbers: string[] = [];
    for (const id of ids) numbers.push((await allocate(accounts, id)).accountNumber);
    // Released in the order 2, 0, 1: number 2 cools down first.
    for (const index of [2, 0, 1]) {
      clock.advance(DAY);
      await release(accounts, ids[index]);
    }
    clock.advance(400 * DAY);
    const reused = [];
    for (let i = 0; i < 3; i++) reused.push((await allocate(accounts)).accountNumber);
    expect(reused).toEqual([numbers[2], numbers[0], numbers[1]]);
  });

  it('refuses, at the database, a hand-out inside the 365-day window', async () => {
    const accounts = service('057');
    const id = onrampId();
    const { accountNumber } = await allocate(accounts, id);
    const releasedAt = T0 + 10 * DAY;
    clock.set(new Date(releasedAt));
    await release(accounts, id);

    for (const at of [releasedAt + 100 * DAY, releasedAt + 365 * DAY - 1, T0 - DAY]) {
      const insert = sql(INSERT_ASSIGNMENT, [accountNumber, onrampId(), new Date(at)]);
      await expect(insert).rejects.toThrow(EXCLUSION);
    }
    const state = await sqlState(
      sql(INSERT_ASSIGNMENT, [accountNumber, onrampId(), new Date(releasedAt + DAY)]),
    );
    expect(state).toBe('23P01');
    // The window ends exactly 365 days after the release.
    await expect(
      sql(INSERT_ASSIGNMENT, [accountNumber, onrampId(), new Date(releasedAt + 365 * DAY)]),
    ).resolves.toBeDefined();
  });

  it('refuses, at the database, a second open hand-out of a held number', async () => {
    const accounts = service('058');
    const { accountNumber } = await allocate(accounts);
    const insert = sql(INSERT_ASSIGNMENT, [accountNumber, onrampId(), new Date(T0 + 730 * DAY)]);
    await expect(insert).rejects.toThrow(EXCLUSION);
    expect(await openNumbersOf('058')).toEqual([accountNumber]);
  });

  it('releases idempotently and the trigger refuses moving a release', async () => {
    const accounts = service('063');
    const id = onrampId();
    await allocate(accounts, id);
    clock.set(new Date(T0 + DAY));
    await release(accounts, id);
    clock.set(new Date(T0 + 2 * DAY));
    await release(accounts, id);

    const select = 'select released_at from virtual_account_assignments where onramp_id = ?';
    const [row] = await sql<{ released_at: Date }>(select, [id]);
    expect(new Date(row.released_at).getTime()).toBe(T0 + DAY);

    const move = 'update virtual_account_assignments set released_at = ? where onramp_id = ?';
    await expect(sql(move, [new Date(T0 + 5 * DAY), id])).rejects.toThrow(/already released/);
    await expect(sql(move, [null, id])).rejects.toThrow(/already released/);
    const [after] = await sql<{ released_at: Date }>(select, [id]);
    expect(new Date(after.released_at).getTime()).toBe(T0 + DAY);
  });

  it('refuses to run outside a transaction and to release an unknown onramp', async () => {
    const accounts = service('068');
    await expect(accounts.allocate(orm.em.fork(), onrampId())).rejects.toThrow(/transactional/);
    await expect(release(accounts, onrampId())).rejects.toThrow(/no virtual account/);
    expect(await openNumbersOf('068')).toEqual([]);
  });

  it('hands each cooled-down number to exactly one of 2N concurrent allocations', async () => {
    const N = 25;
    const accounts = service('070');
    const ids = Array.from({ length: N }, onrampId);
    const old = await Promise.all(ids.map((id) => allocate(accounts, id)));
    await Promise.all(ids.map((id) => release(accounts, id)));
    clock.advance(365 * DAY);

    const results = await Promise.allSettled(
      Array.from({ length: 2 * N }, () => allocate(accounts)),
    );
    const failures = results.filter((r) => r.status === 'rejected');
    expect(failures).toEqual([]);
    const numbers = results.map(
      (r) => (r as PromiseFulfilledResult<AllocatedAccount>).value.accountNumber,
    );

    const doubled = await sql(
      `select account_number, count(*)::int as open from virtual_account_assignments
        where released_at is null group by account_number having count(*) > 1`,
    );
    expect(doubled).toEqual([]);
    expect(new Set(numbers).size).toBe(2 * N);
    // Reuse comes first: every cooled-down number went out again, the rest were minted.
    const oldNumbers = old.map((a) => a.accountNumber);
    expect(numbers.filter((n) => oldNumbers.includes(n)).sort()).toEqual([...oldNumbers].sort());
    expect(numbers.every((n) => isValidNuban('070', n))).toBe(true);
  });

  // A pick's snapshot predates a rival's commit, yet its lock comes after it: the row is free
  // to lock but already taken. A large pool makes picks slow enough for this to happen often;
  // without the re-check after locking, these allocations hit the exclusion constraint.
  it('survives picks that lose the race to a commit (large pool, slow picks)', async () => {
    const accounts = service('071');
    const POOL = 5_000;
    const serials = await sql<{ serial: string }>(
      "select nextval('virtual_account_serial') as serial from generate_series(1, ?)",
      [POOL],
    );
    const pool = serials.map((r) => nubanFor('071', Number(r.serial)));
    await sql(
      `insert into virtual_accounts (account_number, bank_code, created_at)
         select n, '071', ? from unnest(?::text[]) n`,
      [new Date(T0), `{${pool.join(',')}}`],
    );
    await sql(
      `insert into virtual_account_assignments (account_number, onramp_id, assigned_at, released_at)
         select n, 'seed_' || n, ?, ? from unnest(?::text[]) n`,
      [new Date(T0), new Date(T0), `{${pool.join(',')}}`],
    );
    clock.advance(365 * DAY);
    for (let round = 0; round < 3; round++) {
      const results = await Promise.allSettled(
        Array.from({ length: 60 }, () => allocate(accounts)),
      );
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    }
    const doubled = await sql(
      `select account_number from virtual_account_assignments
        where released_at is null group by account_number having count(*) > 1`,
    );
    expect(doubled).toEqual([]);
    expect(await openNumbersOf('071')).toHaveLength(180);
  });
});
