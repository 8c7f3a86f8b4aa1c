import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { AddressLimiter, AddressRateLimited } from '../../src/api/address-limit';
import { PostgresRateLimitStore } from '../../src/api/rate-limit';
import { createTestDatabase, openTestOrm } from '../support/db';

const LIMIT = 3;
const header = (credential: string) => ({ place: 'authorization' as const, credential });
const socket = (credential: string) => ({ place: 'connection_params' as const, credential });

/**
 * The limiter's rules against the real shared store, time moved by hand: which credential may
 * pass a refused address (only one that authenticated there, in that place, before the refusal
 * began), and what shares a count (IPv6 per /64, IPv4-mapped as IPv4).
 */
describe('AddressLimiter: refused before the lookup, per presented credential', () => {
  let orm: MikroORM;
  let clock: ManualClock;
  let limiter: AddressLimiter;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
  });
  afterAll(async () => {
    await orm.close();
  });
  beforeEach(() => {
    clock = new ManualClock('2026-06-01T12:00:05Z');
    limiter = new AddressLimiter(new PostgresRateLimitStore(orm, clock, 60_000), clock, LIMIT);
  });

  /** LIMIT failures, then the one past it: the refusal begins. */
  async function refuse(address: string): Promise<void> {
    for (let i = 0; i < LIMIT; i += 1) expect(await limiter.countFailure(address)).toBeNull();
    expect(await limiter.countFailure(address)).toBeInstanceOf(AddressRateLimited);
  }

  it('a credential used there, in that place, before the refusal passes; nothing else does', async () => {
    const address = '198.51.100.1';
    limiter.remember(address, header('Bearer sk_test_known'));
    clock.advance(1_000);
    await refuse(address);
    expect(() => limiter.assertNotRefused(address, header('Bearer sk_test_known'))).not.toThrow();
    // The same string in another place, another key, no credential: refused.
    expect(() => limiter.assertNotRefused(address, socket('Bearer sk_test_known'))).toThrow(
      AddressRateLimited,
    );
    expect(() => limiter.assertNotRefused(address, header('Bearer sk_test_guess'))).toThrow(
      AddressRateLimited,
    );
    expect(() => limiter.assertNotRefused(address)).toThrow(AddressRateLimited);
    // Known from another address is not known here.
    limiter.remember('198.51.100.2', header('Bearer sk_test_elsewhere'));
    expect(() => limiter.assertNotRefused(address, header('Bearer sk_test_elsewhere'))).toThrow(
      AddressRateLimited,
    );
  });

  it('a credential first authenticated after the refusal began is not exempt', async () => {
    const address = '198.51.100.3';
    await refuse(address);
    clock.advance(1_000);
    // (Only an exempt credential can authenticate now; say one did anyway.)
    limiter.remember(address, header('Bearer sk_test_late'));
    expect(() => limiter.assertNotRefused(address, header('Bearer sk_test_late'))).toThrow(
      AddressRateLimited,
    );
  });

  it('an exempt credential stays exempt while used, and a use 10 minutes old is forgotten', async () => {
    const address = '198.51.100.4';
    limiter.remember(address, header('Bearer sk_test_steady'));
    limiter.remember(address, header('Bearer sk_test_stale'));
    clock.advance(9 * 60_000);
    limiter.remember(address, header('Bearer sk_test_steady'));
    clock.advance(2 * 60_000 - 5_000); // 12:11:00: a new minute
    await refuse(address);
    // Used during the refusal, it keeps its first use: still exempt on the next request.
    limiter.assertNotRefused(address, header('Bearer sk_test_steady'));
    limiter.remember(address, header('Bearer sk_test_steady'));
    expect(() => limiter.assertNotRefused(address, header('Bearer sk_test_steady'))).not.toThrow();
    expect(() => limiter.assertNotRefused(address, header('Bearer sk_test_stale'))).toThrow(
      AddressRateLimited,
    );
  });

  it('the refusal ends with its window', async () => {
    const address = '198.51.100.5';
    await refuse(address);
    clock.set('2026-06-01T12:01:00Z');
    expect(() => limiter.assertNotRefused(address)).not.toThrow();
    expect(await limiter.countFailure(address)).toBeNull();
  });

  it('IPv6 shares one count per /64; an IPv4-mapped address is its IPv4 address', async () => {
    await refuse('2001:db8:5:6::1');
    expect(() => limiter.assertNotRefused('2001:db8:5:6:ffff::9')).toThrow(AddressRateLimited);
    expect(() => limiter.assertNotRefused('2001:db8:5:7::1')).not.toThrow();
    await refuse('::ffff:198.51.100.6');
    expect(() => limiter.assertNotRefused('198.51.100.6')).toThrow(AddressRateLimited);
  });
});
