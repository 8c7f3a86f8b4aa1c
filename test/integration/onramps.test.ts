import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { DomainError, ErrorCode } from '../../src/domain/errors';
import { dec } from '../../src/domain/money';
import { createTestDatabase, openTestOrm } from '../support/db';
import { secretKeyContext } from '../support/contexts';

const market = {
  name: 'fixed',
  marketRates: async () => ({ USD: dec(1500), USDC: dec(1500), USDT: dec(1501) }),
};

describe('onramp service (real PostgreSQL, injected clock)', () => {
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock('2026-07-01T12:00:00Z');
    services = createServices(
      loadConfig({ ONRAMP_DAILY_LIMIT: '3', RATE_TTL_SECONDS: '86400' }),
      clock,
    );
  });
  afterAll(() => orm.close());

  async function merchantWithRate(): Promise<{ merchantId: string; rateId: string }> {
    const merchant = await services.merchants.create(orm.em.fork(), 'Quota Co');
    const outcome = await services.rates.publish(orm.em.fork(), market);
    const rateId = outcome.published
      ? outcome.rates.find((r) => r.to === 'USDC')!.id
      : (await services.rates.current(orm.em.fork(), { from: 'NGN', to: 'USDC' })).id;
    return { merchantId: merchant.id, rateId };
  }

  const create = (merchantId: string, rateId: string) =>
    services.onramps.create(orm.em.fork(), merchantId, {
      type: 'EPHEMERAL',
      user: { email: 'q@example.com' },
      rateId,
      settlement: { mode: 'MERCHANT_BALANCE' },
    });

  it('refuses any change of settlement, type, rate or account at the database', async () => {
    const { merchantId, rateId } = await merchantWithRate();
    const { onramp } = await create(merchantId, rateId);
    const connection = orm.em.fork().getConnection();
    for (const change of [
      "settlement_mode = 'AUTO_WITHDRAW', settlement_asset = 'USDC', settlement_chain = 'BASE', destination_address = '0x1111111111111111111111111111111111111111'",
      "type = 'PERMANENT'",
      "account_number = '0000014579'",
      "merchant_id = merchant_id || 'x'",
    ]) {
      await expect(
        connection.execute(`update onramps set ${change} where id = ?`, [onramp.id]),
      ).rejects.toThrow(/immutable|violates/);
    }
    await connection.execute("update onramps set status = 'DEACTIVATED' where id = ?", [onramp.id]);
  });

  it('counts onramps per Africa/Lagos day: the (limit + 1)-th freezes, the next Lagos day is counted anew', async () => {
    const { merchantId, rateId } = await merchantWithRate();
    // 22:50 UTC on 1 July is 23:50 in Lagos (UTC+1).
    clock.set('2026-07-01T22:50:00Z');
    for (let i = 0; i < 3; i += 1) await create(merchantId, rateId);
    // 23:10 UTC is already 2 July in Lagos: a new day, so three more fit.
    clock.set('2026-07-01T23:10:00Z');
    for (let i = 0; i < 3; i += 1) await create(merchantId, rateId);
    const fourth = await create(merchantId, rateId).catch((e: unknown) => e);
    expect(fourth).toBeInstanceOf(DomainError);
    expect((fourth as DomainError).code).toBe(ErrorCode.MerchantFrozen);
    expect((await services.merchants.get(orm.em.fork(), merchantId)).status).toBe('FROZEN');
    // Frozen stays frozen on the next day until an operator unfreezes.
    clock.set('2026-07-03T10:00:00Z');
    await expect(create(merchantId, rateId)).rejects.toMatchObject({
      code: ErrorCode.MerchantFrozen,
    });
    const rows = await orm.em
      .fork()
      .getConnection()
      .execute(
        'select day::text, created from merchant_daily_onramps where merchant_id = ? order by day',
        [merchantId],
      );
    expect(rows).toEqual([
      { day: '2026-07-01', created: 3 },
      { day: '2026-07-02', created: 4 },
    ]);
  });

  it('expires short-lived onramps in the sweep and starts the account cooldown', async () => {
    clock.set('2026-08-01T09:00:00Z');
    const { merchantId, rateId } = await merchantWithRate();
    await services.onramps.expireDue(orm.em.fork()); // earlier tests' onramps
    const { onramp } = await create(merchantId, rateId);
    clock.advance(1500 * 1000 - 1);
    expect(await services.onramps.expireDue(orm.em.fork())).toBe(0);
    clock.advance(1);
    expect(await services.onramps.expireDue(orm.em.fork())).toBe(1);
    const after = await services.onramps.get(
      orm.em.fork(),
      secretKeyContext(services, merchantId),
      onramp.id,
    );
    expect(after.status).toBe('EXPIRED');
    const [assignment] = await orm.em
      .fork()
      .getConnection()
      .execute(
        'select released_at, cooldown_until from virtual_account_assignments where onramp_id = ?',
        [onramp.id],
      );
    expect(new Date(assignment.released_at).toISOString()).toBe('2026-08-01T09:25:00.000Z');
    expect(new Date(assignment.cooldown_until).toISOString()).toBe('2027-08-01T09:25:00.000Z');
  });
});
