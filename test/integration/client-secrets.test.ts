import type { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { DomainError, ErrorCode } from '../../src/domain/errors';
import { dec } from '../../src/domain/money';
import { CREDENTIAL_REVOKED } from '../../src/events/channels';
import { createTestDatabase, openTestOrm } from '../support/db';

const GRACE_S = 3600;
const TTL_S = 1500;
const market = {
  name: 'fixed',
  marketRates: async () => ({ USD: dec(1500), USDC: dec(1500), USDT: dec(1501) }),
};

/**
 * Client secrets stop working a grace period after their onramp stops taking money, and when
 * the merchant revokes them (real PostgreSQL, injected clock).
 */
describe('client secret lifetime', () => {
  let orm: MikroORM;
  let databaseUrl: string;
  const clock = new ManualClock('2026-08-01T12:00:00Z');
  let services: Services;
  let merchantId: string;
  let rateId: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    orm = await openTestOrm(databaseUrl);
    services = createServices(
      loadConfig({
        CLIENT_SECRET_GRACE_SECONDS: String(GRACE_S),
        ONRAMP_TTL_SECONDS: String(TTL_S),
        RATE_TTL_SECONDS: '864000',
      }),
      clock,
    );
    merchantId = (await services.merchants.create(orm.em.fork(), 'Lifetime Co')).id;
    const published = await services.rates.publish(orm.em.fork(), market);
    if (!published.published) throw new Error('expected a rate');
    rateId = published.rates.find((r) => r.to === 'USDC')!.id;
  });
  afterAll(() => orm.close());

  const create = (type: 'EPHEMERAL' | 'PERMANENT' | 'THROWAWAY', owner = merchantId) =>
    services.onramps.create(orm.em.fork(), owner, {
      type,
      user: { email: 'life@example.com' },
      rateId: type === 'PERMANENT' ? null : rateId,
      settlement: { mode: 'MERCHANT_BALANCE' },
    });
  const authenticate = (secret: string) =>
    services.auth.authenticate(orm.em.fork(), `Bearer ${secret}`);
  const refusal = async (secret: string): Promise<DomainError> => {
    const error = await authenticate(secret).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe(ErrorCode.Unauthorized);
    return error as DomainError;
  };
  const at = (base: Date, seconds: number) => new Date(base.getTime() + seconds * 1000);

  it('a short-lived onramp: works until its TTL plus the grace, read-time EXPIRED included', async () => {
    const { onramp, clientSecret } = await create('EPHEMERAL');
    const expiresAt = onramp.expiresAt!;
    const principal = await authenticate(clientSecret);
    expect(principal).toEqual({
      kind: 'client_secret',
      merchantId,
      onrampId: onramp.id,
      expiresAt: at(expiresAt, GRACE_S),
    });
    // EXPIRED by the clock, before any sweep persisted it: still within the grace.
    clock.set(at(expiresAt, GRACE_S - 1));
    await expect(authenticate(clientSecret)).resolves.toMatchObject({ onrampId: onramp.id });
    clock.set(at(expiresAt, GRACE_S));
    expect((await refusal(clientSecret)).message).toMatch(/client secret expired/);
  });

  it('the expiry sweep running late does not lengthen the grace', async () => {
    clock.set('2026-08-02T12:00:00Z');
    const { onramp, clientSecret } = await create('EPHEMERAL');
    clock.set(at(onramp.expiresAt!, GRACE_S + 600));
    expect(await services.onramps.expireDue(orm.em.fork())).toBeGreaterThanOrEqual(1);
    expect((await refusal(clientSecret)).message).toMatch(/client secret expired/);
  });

  it('a PERMANENT onramp: no expiry while ACTIVE; deactivated, it ends after the grace', async () => {
    clock.set('2026-08-03T12:00:00Z');
    const { onramp, clientSecret } = await create('PERMANENT');
    clock.advance(30 * 24 * 3600 * 1000);
    const principal = await authenticate(clientSecret);
    expect(principal).not.toHaveProperty('expiresAt');

    const deactivatedAt = clock.now();
    await services.onramps.deactivate(orm.em.fork(), merchantId, onramp.id);
    expect(await authenticate(clientSecret)).toMatchObject({
      expiresAt: at(deactivatedAt, GRACE_S),
    });
    clock.set(at(deactivatedAt, GRACE_S));
    await refusal(clientSecret);
  });

  it('a COMPLETED onramp ends a grace after it completed, not after its TTL', async () => {
    clock.set('2026-08-04T12:00:00Z');
    const { onramp, clientSecret } = await create('THROWAWAY');
    clock.advance(60_000);
    const completedAt = clock.now();
    // What deposit ingestion does when a THROWAWAY takes its transfer.
    await orm.em
      .fork()
      .getConnection()
      .execute("update onramps set status = 'COMPLETED', updated_at = ? where id = ?", [
        completedAt,
        onramp.id,
      ]);
    expect(completedAt < onramp.expiresAt!).toBe(true);
    expect(await authenticate(clientSecret)).toMatchObject({
      expiresAt: at(completedAt, GRACE_S),
    });
    clock.set(at(completedAt, GRACE_S));
    await refusal(clientSecret);
  });

  it('revocation: 401 at once, announced in the same transaction, 404 for another merchant', async () => {
    clock.set('2026-08-05T12:00:00Z');
    const { onramp, clientSecret } = await create('PERMANENT');
    const other = (await services.merchants.create(orm.em.fork(), 'Other Co')).id;

    const listener = new Client({ connectionString: databaseUrl });
    await listener.connect();
    const notices: string[] = [];
    listener.on('notification', (n) => {
      if (n.channel === CREDENTIAL_REVOKED.name) notices.push(n.payload ?? '');
    });
    await listener.query(`listen ${CREDENTIAL_REVOKED.name}`);
    try {
      await expect(
        services.onramps.revokeClientSecret(orm.em.fork(), other, onramp.id),
      ).rejects.toMatchObject({ code: ErrorCode.NotFound });
      await expect(authenticate(clientSecret)).resolves.toMatchObject({ onrampId: onramp.id });

      const revoked = await services.onramps.revokeClientSecret(
        orm.em.fork(),
        merchantId,
        onramp.id,
      );
      expect(revoked.id).toBe(onramp.id);
      expect((await refusal(clientSecret)).message).toBe('This client secret has been revoked');
      // Again: the same answer, the secret stays revoked.
      await services.onramps.revokeClientSecret(orm.em.fork(), merchantId, onramp.id);
      await refusal(clientSecret);

      const deadline = Date.now() + 5000;
      while (notices.length < 2 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(notices.map((n) => JSON.parse(n))).toEqual([
        { kind: 'client_secret', id: onramp.id },
        { kind: 'client_secret', id: onramp.id },
      ]);
    } finally {
      await listener.end();
    }
  });
});
