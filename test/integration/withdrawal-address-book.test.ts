import type { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { DomainError } from '../../src/domain/errors';
import { presentWithdrawalAddress } from '../../src/payouts';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import { TEST_ENCRYPTION_KEY } from '../support/stack';

/** The payment rules a merchant that never set them has (issue 22): accept, no name check. */
const DEFAULT_RULES = {
  underpayment: { tolerance_ngn: '0.00', tolerance_bps: 0, action: 'accept' },
  overpayment: { tolerance_ngn: '0.00', tolerance_bps: 0, action: 'accept' },
  payer_name_check: { enabled: false, action: 'flag' },
  allowed_origins: [],
  payer_resolution: { allow_settle: false },
};

const ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const OTHER = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const DELAY_SECONDS = 600;

/** A distinct valid address per number (lower case: no checksum to satisfy). */
const nthAddress = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: unknown) => (error instanceof DomainError ? error.code : String(error)),
  );

describe('withdrawal address book (real PostgreSQL, production rules, manual clock)', () => {
  let databaseUrl: string;
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;

  const config = () =>
    loadConfig({
      ONRAMP_ENV: 'production',
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      WITHDRAWAL_ADDRESS_DELAY_SECONDS: String(DELAY_SECONDS),
    });

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    orm = await openTestOrm(databaseUrl);
    clock = new ManualClock('2026-08-01T09:00:00Z');
    services = createServices(config(), clock);
    kit = depositKit(orm, services, clock);
  });
  afterAll(() => orm?.close());

  const em = () => orm.em.fork();
  const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
    orm.em.fork().getConnection().execute<T[]>(text, params);

  /** A merchant with a settled balance of a few USD. */
  async function fundedMerchant(name: string): Promise<string> {
    const merchant = await kit.merchant(name);
    const deposit = await kit.transfer((await kit.onramp(merchant)).accountNumber, '30000');
    expect(await services.settlement.settle(em(), deposit.id)).toBe('SETTLED');
    return merchant;
  }
  const actor = (merchantId: string) => ({ merchantId, keyId: 'key_integration' });
  const withdraw = (merchantId: string, to = ADDRESS, chain = 'BASE') =>
    services.withdrawals.request(em(), merchantId, {
      amount: '1',
      asset: 'USDC',
      chain,
      destination_address: to,
    });
  const eventsOf = (merchantId: string) =>
    sql<{ kind: string; snapshot: Record<string, unknown> }>(
      'select kind, snapshot from events where merchant_id = ? and deposit_id is null order by seq',
      [merchantId],
    );

  it('is PENDING until active_at on the clock, then ACTIVE; the withdrawal follows it', async () => {
    const merchant = await fundedMerchant('Book Co');
    expect(await services.merchantSettings.get(em(), merchant)).toEqual({
      require_address_book: true,
      ...DEFAULT_RULES,
      pending_changes: [],
    });
    expect(await codeOf(withdraw(merchant))).toBe('address_not_allowed');

    // Lower case in, checksummed out (as withdrawals store their destination).
    const { entry, created } = await services.withdrawalAddresses.add(em(), actor(merchant), {
      chain: 'BASE',
      address: ADDRESS.toLowerCase(),
      label: 'cold wallet',
    });
    expect(created).toBe(true);
    expect(presentWithdrawalAddress(entry, clock.now())).toMatchObject({
      id: expect.stringMatching(/^wa_/),
      chain: 'BASE',
      address: ADDRESS,
      label: 'cold wallet',
      status: 'PENDING',
      active_at: new Date(clock.now().getTime() + DELAY_SECONDS * 1000).toISOString(),
    });
    expect(await codeOf(withdraw(merchant))).toBe('address_not_allowed');

    clock.advance(DELAY_SECONDS * 1000 - 1);
    expect(await codeOf(withdraw(merchant))).toBe('address_not_allowed');
    clock.advance(1);
    const listed = await services.withdrawalAddresses.list(em(), merchant, {
      offset: 0,
      limit: 20,
    });
    expect(listed.entries.map((e) => presentWithdrawalAddress(e, clock.now()).status)).toEqual([
      'ACTIVE',
    ]);
    expect(await codeOf(withdraw(merchant))).toBe('accepted');
    // Another chain's entry does not cover it; another address is refused.
    expect(await codeOf(withdraw(merchant, ADDRESS, 'POLYGON'))).toBe('address_not_allowed');
    expect(await codeOf(withdraw(merchant, OTHER))).toBe('address_not_allowed');

    // The same address again answers the same entry, its delay not restarted.
    const again = await services.withdrawalAddresses.add(em(), actor(merchant), {
      chain: 'BASE',
      address: ADDRESS,
    });
    expect({ id: again.entry.id, created: again.created }).toEqual({
      id: entry.id,
      created: false,
    });

    const removed = await services.withdrawalAddresses.remove(em(), actor(merchant), entry.id);
    expect(presentWithdrawalAddress(removed, clock.now()).status).toBe('DELETED');
    expect(await codeOf(withdraw(merchant))).toBe('address_not_allowed');
    expect(await codeOf(services.withdrawalAddresses.remove(em(), actor(merchant), entry.id))).toBe(
      'not_found',
    );

    expect((await eventsOf(merchant)).map((e) => e.kind)).toEqual([
      'withdrawal_address.created',
      'withdrawal_address.deleted',
    ]);
    const audit = await sql<{ actor: string; action: string; target_id: string }>(
      `select actor, action, target_id from audit_log where target_id = ? order by created_at, id`,
      [entry.id],
    );
    expect(audit).toEqual([
      { actor: 'api_key:key_integration', action: 'withdrawal_address.add', target_id: entry.id },
      {
        actor: 'api_key:key_integration',
        action: 'withdrawal_address.remove',
        target_id: entry.id,
      },
    ]);
  });

  it('turning the rule off waits the delay (issue 32): pending, refused, then applied once', async () => {
    const merchant = await fundedMerchant('Settings Co');
    expect(await codeOf(withdraw(merchant, OTHER))).toBe('address_not_allowed');
    const requestedAt = clock.now();
    const effectiveAt = new Date(requestedAt.getTime() + DELAY_SECONDS * 1000).toISOString();
    const pending = [{ field: 'require_address_book', value: false, effective_at: effectiveAt }];
    expect(
      await services.merchantSettings.update(em(), actor(merchant), {
        require_address_book: false,
      }),
    ).toEqual({ require_address_book: true, ...DEFAULT_RULES, pending_changes: pending });
    expect(await codeOf(withdraw(merchant, OTHER))).toBe('address_not_allowed');
    // The same request again keeps its effective_at; an empty PATCH changes nothing.
    clock.advance(10_000);
    await services.merchantSettings.update(em(), actor(merchant), { require_address_book: false });
    await services.merchantSettings.update(em(), actor(merchant), {});
    expect((await services.merchantSettings.get(em(), merchant)).pending_changes).toEqual(pending);
    expect(
      await codeOf(
        services.merchantSettings.update(em(), actor(merchant), { require_address_book: 'no' }),
      ),
    ).toBe('invalid_parameter');
    // Nothing is due a millisecond early, for the job or for a withdrawal.
    clock.set(new Date(Date.parse(effectiveAt) - 1));
    expect(await services.merchantSettings.applyDueChanges(em())).toBe(0);
    expect(await codeOf(withdraw(merchant, OTHER))).toBe('address_not_allowed');
    // At effective_at it applies even before the job has run.
    clock.set(new Date(effectiveAt));
    expect(await services.merchantSettings.get(em(), merchant)).toEqual({
      require_address_book: false,
      ...DEFAULT_RULES,
      pending_changes: [],
    });
    expect(await codeOf(withdraw(merchant, OTHER))).toBe('accepted');
    // Two runners at once: one applies and announces it, the other finds nothing.
    const passes = await Promise.all([
      services.merchantSettings.applyDueChanges(em()),
      services.merchantSettings.applyDueChanges(em()),
    ]);
    expect(passes.sort()).toEqual([0, 1]);
    expect(await services.merchantSettings.applyDueChanges(em())).toBe(0);
    expect(
      await sql('select require_address_book, pending_settings from merchants where id = ?', [
        merchant,
      ]),
    ).toEqual([{ require_address_book: false, pending_settings: null }]);

    // Turning it back on is immediate.
    await services.merchantSettings.update(em(), actor(merchant), { require_address_book: true });
    expect(await codeOf(withdraw(merchant, OTHER))).toBe('address_not_allowed');
    expect(await eventsOf(merchant)).toEqual([
      {
        kind: 'merchant.settings_updated',
        snapshot: { require_address_book: true, ...DEFAULT_RULES, pending_changes: pending },
      },
      {
        kind: 'merchant.settings_updated',
        snapshot: { require_address_book: false, ...DEFAULT_RULES, pending_changes: [] },
      },
      {
        kind: 'merchant.settings_updated',
        snapshot: { require_address_book: true, ...DEFAULT_RULES, pending_changes: [] },
      },
    ]);
    const audit = await sql<{ actor: string; action: string; before: unknown; after: unknown }>(
      `select actor, action, before, after from audit_log where target_id = ? order by created_at, id`,
      [merchant],
    );
    expect(audit).toEqual([
      {
        actor: 'api_key:key_integration',
        action: 'merchant.settings_update',
        before: { require_address_book: true, ...DEFAULT_RULES, pending_changes: [] },
        after: { require_address_book: true, ...DEFAULT_RULES, pending_changes: pending },
      },
      {
        actor: 'api_key:key_integration',
        action: 'merchant.settings_effect',
        before: { require_address_book: true, ...DEFAULT_RULES, pending_changes: pending },
        after: {
          require_address_book: false,
          ...DEFAULT_RULES,
          pending_changes: [],
          applied: [
            {
              field: 'require_address_book',
              value: false,
              requested_at: requestedAt.toISOString(),
            },
          ],
        },
      },
      {
        actor: 'api_key:key_integration',
        action: 'merchant.settings_update',
        before: { require_address_book: false, ...DEFAULT_RULES, pending_changes: [] },
        after: { require_address_book: true, ...DEFAULT_RULES, pending_changes: [] },
      },
    ]);
  });

  it('a PATCH after effective_at applies the due change first, announced once', async () => {
    const merchant = await kit.merchant('Late Job Co');
    await services.merchantSettings.update(em(), actor(merchant), {
      payer_resolution: { allow_settle: true },
      underpayment: { tolerance_bps: 25 },
    });
    clock.advance(DELAY_SECONDS * 1000);
    // A tightening of one of them before the job has run: the other one stays applied.
    const after = await services.merchantSettings.update(em(), actor(merchant), {
      underpayment: { tolerance_bps: 5 },
    });
    expect(after).toMatchObject({
      payer_resolution: { allow_settle: true },
      underpayment: { tolerance_bps: 5 },
      pending_changes: [],
    });
    expect(await services.merchantSettings.applyDueChanges(em())).toBe(0);
    expect((await eventsOf(merchant)).map((e) => e.kind)).toEqual([
      'merchant.settings_updated', // the request
      'merchant.settings_updated', // the effect
      'merchant.settings_updated', // the tightening
    ]);
  });

  it('refuses invalid addresses and chains with the withdrawal codes', async () => {
    const merchant = await kit.merchant('Invalid Co');
    const add = (input: Record<string, unknown>) =>
      codeOf(services.withdrawalAddresses.add(em(), actor(merchant), input));
    expect(await add({ chain: 'BASE', address: '0x1234' })).toBe('invalid_address');
    expect(await add({ chain: 'BASE', address: ADDRESS.replace('a', 'A') })).toBe(
      'invalid_address',
    );
    expect(await add({ chain: 'BASE', address: nthAddress(0) })).toBe('invalid_address');
    expect(await add({ chain: 'SOLANA', address: ADDRESS })).toBe('invalid_parameter');
    expect(await add({ address: ADDRESS })).toBe('missing_parameter');
    expect(await add({ chain: 'BASE', address: ADDRESS, label: 'x'.repeat(101) })).toBe(
      'invalid_parameter',
    );
  });

  it('a DELETE that commits while a withdrawal waits on the entry refuses that withdrawal', async () => {
    const merchant = await fundedMerchant('Race Co');
    const { entry } = await services.withdrawalAddresses.add(em(), actor(merchant), {
      chain: 'BASE',
      address: ADDRESS,
    });
    clock.advance(DELAY_SECONDS * 1000);

    // The DELETE holds the row (uncommitted) while the withdrawal reads it.
    const deleter = new Client({ connectionString: databaseUrl });
    await deleter.connect();
    try {
      await deleter.query('begin');
      await deleter.query('update withdrawal_addresses set deleted_at = now() where id = $1', [
        entry.id,
      ]);
      let settled = false;
      const outcome = codeOf(withdraw(merchant)).finally(() => {
        settled = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      // FOR SHARE waits for the deleting transaction instead of reading the old row version.
      expect(settled).toBe(false);
      await deleter.query('commit');
      expect(await outcome).toBe('address_not_allowed');
    } finally {
      await deleter.end();
    }
    const rows = await sql('select id from withdrawals where merchant_id = ?', [merchant]);
    expect(rows).toEqual([]);
  });

  it('never lets a withdrawal through after a concurrent removal commits', async () => {
    const merchant = await fundedMerchant('Concurrent Co');
    for (let round = 0; round < 5; round += 1) {
      const { entry } = await services.withdrawalAddresses.add(em(), actor(merchant), {
        chain: 'BASE',
        address: ADDRESS,
      });
      clock.advance(DELAY_SECONDS * 1000);
      const [withdrawal] = await Promise.allSettled([
        withdraw(merchant),
        services.withdrawalAddresses.remove(em(), actor(merchant), entry.id),
      ]);
      // Either order is fine (the withdrawal first: accepted; the removal first: refused), but
      // nothing else: no deadlock, no serialization error reaching the merchant.
      if (withdrawal.status === 'rejected') {
        expect((withdrawal.reason as DomainError).code).toBe('address_not_allowed');
      }
      expect(await codeOf(withdraw(merchant))).toBe('address_not_allowed');
    }
  });

  it('writes withdrawal_address.activated exactly once, with two runners each running twice', async () => {
    const merchant = await kit.merchant('Activation Co');
    const ids: string[] = [];
    for (let n = 1; n <= 5; n += 1) {
      const { entry } = await services.withdrawalAddresses.add(em(), actor(merchant), {
        chain: 'ETHEREUM',
        address: nthAddress(n),
      });
      ids.push(entry.id);
    }
    // Removed before its delay passed: never announced.
    await services.withdrawalAddresses.remove(em(), actor(merchant), ids.pop()!);
    const runners = [services, createServices(config(), clock)];
    expect(await runners[0].withdrawalAddresses.announceActivations(em())).toBe(0);
    clock.advance(DELAY_SECONDS * 1000);
    const counts = await Promise.all(
      [...runners, ...runners].map((r) => r.withdrawalAddresses.announceActivations(em(), 2)),
    );
    const more = await Promise.all(
      runners.map((r) => r.withdrawalAddresses.announceActivations(em())),
    );
    expect([...counts, ...more].reduce((a, b) => a + b, 0)).toBe(4);
    const activated = await sql<{ id: string; status: string }>(
      `select snapshot->>'id' as id, snapshot->>'status' as status from events
        where merchant_id = ? and kind = 'withdrawal_address.activated' order by snapshot->>'id'`,
      [merchant],
    );
    expect(activated).toEqual(ids.sort().map((id) => ({ id, status: 'ACTIVE' })));
    // Each event owes a webhook delivery like every non-deposit event (none: no endpoint here).
    const marked = await sql<{ n: string }>(
      'select count(*)::text as n from withdrawal_addresses where merchant_id = ? and activated_at is not null',
      [merchant],
    );
    expect(marked[0].n).toBe('4');
  });

  it('holds at most 100 entries, under concurrency too', async () => {
    const merchant = await kit.merchant('Limit Co');
    const adds = Array.from({ length: 104 }, (_, n) =>
      codeOf(
        services.withdrawalAddresses.add(em(), actor(merchant), {
          chain: 'POLYGON',
          address: nthAddress(n + 1),
        }),
      ),
    );
    const outcomes = await Promise.all(adds);
    expect(outcomes.filter((o) => o === 'accepted')).toHaveLength(100);
    expect(outcomes.filter((o) => o === 'limit_exceeded')).toHaveLength(4);
    const { total } = await services.withdrawalAddresses.list(em(), merchant, {
      offset: 0,
      limit: 1,
    });
    expect(total).toBe(100);
    // One removed: room for one more.
    const [first] = (
      await services.withdrawalAddresses.list(em(), merchant, { offset: 0, limit: 1 })
    ).entries;
    await services.withdrawalAddresses.remove(em(), actor(merchant), first.id);
    expect(
      await codeOf(
        services.withdrawalAddresses.add(em(), actor(merchant), {
          chain: 'POLYGON',
          address: nthAddress(500),
        }),
      ),
    ).toBe('accepted');
  });
});
