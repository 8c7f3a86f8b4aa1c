import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { RateService } from '../../src/rates/rate.service';
import { SandboxRateSource } from '../../src/adapters/fx/sandbox-rate-source';
import type { RateSource } from '../../src/adapters/fx/rate-source';
import { dec } from '../../src/domain/money';
import { priceQuote } from '../../src/domain/rates';
import { DomainError, ErrorCode } from '../../src/domain/errors';
import { createTestDatabase, openTestOrm } from '../support/db';

const fixedSource: RateSource = {
  name: 'fixed',
  marketRates: async () => ({ USD: dec('1500'), USDC: dec('1500'), USDT: dec('1502.5') }),
};

describe('rate publication and lookup (real PostgreSQL)', () => {
  let orm: MikroORM;
  let clock: ManualClock;
  let rates: RateService;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
  });
  afterAll(() => orm.close());

  let testIndex = 0;
  beforeEach(() => {
    // Rates are immutable and shared by the file's tests, so each test starts ten days after
    // the previous one: earlier tests' rates have expired by then.
    clock = new ManualClock(new Date(Date.UTC(2026, 2, 1) + testIndex++ * 10 * 86_400_000));
    rates = new RateService(clock, { feeBps: 50, intervalSeconds: 600, ttlSeconds: 1800 });
  });

  it('publishes one immutable rate per quote currency with the fee applied', async () => {
    const outcome = await rates.publish(orm.em.fork(), fixedSource);
    expect(outcome.published).toBe(true);
    if (!outcome.published) return;
    expect(outcome.rates.map((r) => r.to).sort()).toEqual(['USD', 'USDC', 'USDT']);
    const usdc = await rates.current(orm.em.fork(), { from: 'NGN', to: 'USDC' });
    const expected = priceQuote(dec('1500'), 50);
    expect(usdc.inverseRate).toBe(expected.inverseRate.toFixed(12));
    expect(usdc.rate).toBe(expected.rate.toFixed(6));
    expect(usdc.marketRate).toBe('1500.000000000000');
    expect(usdc.feeBps).toBe(50);
    expect(usdc.minDepositNgn).toBe('1500.00');
    expect(usdc.expiresAt.getTime() - usdc.createdAt.getTime()).toBe(1800 * 1000);
  });

  it('refuses UPDATE and DELETE of a published rate at the database', async () => {
    await rates.publish(orm.em.fork(), fixedSource);
    const rate = await rates.current(orm.em.fork(), { from: 'NGN', to: 'USD' });
    const connection = orm.em.fork().getConnection();
    await expect(
      connection.execute(
        "update rates set expires_at = expires_at + interval '1 day' where id = ?",
        [rate.id],
      ),
    ).rejects.toThrow(/rates are immutable/);
    await expect(
      connection.execute('update rates set rate = 1 where id = ?', [rate.id]),
    ).rejects.toThrow(/immutable/);
    await expect(connection.execute('delete from rates where id = ?', [rate.id])).rejects.toThrow(
      /immutable/,
    );
    const again = await orm.em
      .fork()
      .getConnection()
      .execute('select rate, expires_at from rates where id = ?', [rate.id]);
    expect(again[0].rate).toBe(rate.rate);
  });

  it('answers rate_unavailable once the newest rate has expired', async () => {
    await rates.publish(orm.em.fork(), fixedSource);
    const published = await rates.current(orm.em.fork(), { from: 'NGN', to: 'USDC' });
    clock.set(new Date(published.expiresAt.getTime() - 1));
    await expect(rates.current(orm.em.fork(), { from: 'NGN', to: 'USDC' })).resolves.toMatchObject({
      id: published.id,
    });
    clock.set(published.expiresAt);
    const error = await rates
      .current(orm.em.fork(), { from: 'NGN', to: 'USDC' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe(ErrorCode.RateUnavailable);
  });

  it('returns the newest valid rate', async () => {
    await rates.publish(orm.em.fork(), fixedSource);
    const first = await rates.current(orm.em.fork(), { from: 'NGN', to: 'USDT' });
    clock.advance(600 * 1000);
    await rates.publish(orm.em.fork(), new SandboxRateSource({ random: () => 0.9 }));
    const second = await rates.current(orm.em.fork(), { from: 'NGN', to: 'USDT' });
    expect(second.id).not.toBe(first.id);
    expect(second.createdAt.getTime()).toBeGreaterThan(first.createdAt.getTime());
  });

  it('publishes once when several runners race within one interval', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () => rates.publish(orm.em.fork(), fixedSource)),
    );
    expect(outcomes.filter((o) => o.published)).toHaveLength(1);
    const rows = await orm.em
      .fork()
      .getConnection()
      .execute('select count(*)::int as n from rates where created_at = ?', [clock.now()]);
    expect(rows[0].n).toBe(3);
  });

  it('publishes nothing when the source is down, keeping the last rate until it expires', async () => {
    await rates.publish(orm.em.fork(), fixedSource);
    const last = await rates.current(orm.em.fork(), { from: 'NGN', to: 'USDC' });
    clock.advance(600 * 1000);
    const down = new SandboxRateSource({ isDown: async () => true });
    await expect(rates.publish(orm.em.fork(), down)).rejects.toThrow(/down/);
    await expect(rates.current(orm.em.fork(), { from: 'NGN', to: 'USDC' })).resolves.toMatchObject({
      id: last.id,
    });
  });
});
