import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { AuthService } from '../../src/merchants/auth.service';
import { MerchantService } from '../../src/merchants/merchant.service';
import { KeyEnvironment } from '../../src/domain/key-environment';
import { DomainError, ErrorCode } from '../../src/domain/errors';
import { createTestDatabase, openTestOrm } from '../support/db';

async function rejection(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe('API keys (real PostgreSQL)', () => {
  let orm: MikroORM;
  const clock = new ManualClock('2026-05-01T10:00:00Z');
  const merchants = new MerchantService(clock);
  const sandboxAuth = new AuthService(KeyEnvironment.Sandbox, clock, 86_400);

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
  });
  afterAll(() => orm.close());

  it('stores only the hash of a key and authenticates it', async () => {
    const merchant = await merchants.create(orm.em.fork(), 'Acme');
    const issued = await merchants.issueKey(orm.em.fork(), merchant.id, KeyEnvironment.Sandbox);
    expect(issued.apiKey).toMatch(/^sk_test_[A-Za-z0-9]{30,}$/);
    const rows = await orm.em
      .fork()
      .getConnection()
      .execute('select * from api_keys where id = ?', [issued.keyId]);
    expect(JSON.stringify(rows)).not.toContain(issued.apiKey);
    expect(rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
    const principal = await sandboxAuth.authenticate(orm.em.fork(), `Bearer ${issued.apiKey}`);
    expect(principal).toEqual({
      kind: 'secret_key',
      merchantId: merchant.id,
      keyId: issued.keyId,
      scopes: ['all'],
    });
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['not bearer', 'Basic abc'],
    ['malformed key', 'Bearer sk_test_short'],
    ['unknown key', `Bearer sk_test_${'a'.repeat(40)}`],
    ['wrong scheme spacing', 'Bearer  sk_test_x'],
  ])('refuses a %s header with 401 unauthorized', async (_label, header) => {
    const error = await rejection(sandboxAuth.authenticate(orm.em.fork(), header));
    expect(error.code).toBe(ErrorCode.Unauthorized);
  });

  it('refuses a revoked key', async () => {
    const merchant = await merchants.create(orm.em.fork(), 'Revoked Co');
    const issued = await merchants.issueKey(orm.em.fork(), merchant.id, KeyEnvironment.Sandbox);
    await merchants.revokeKey(orm.em.fork(), issued.keyId);
    const error = await rejection(
      sandboxAuth.authenticate(orm.em.fork(), `Bearer ${issued.apiKey}`),
    );
    expect(error.code).toBe(ErrorCode.Unauthorized);
    expect(error.message).toMatch(/revoked/);
  });

  it('refuses a key of the other environment', async () => {
    const merchant = await merchants.create(orm.em.fork(), 'Live Co');
    const live = await merchants.issueKey(orm.em.fork(), merchant.id, KeyEnvironment.Production);
    expect(live.apiKey).toMatch(/^sk_live_/);
    const error = await rejection(sandboxAuth.authenticate(orm.em.fork(), `Bearer ${live.apiKey}`));
    expect(error.code).toBe(ErrorCode.Unauthorized);
    const productionAuth = new AuthService(KeyEnvironment.Production, clock, 86_400);
    await expect(
      productionAuth.authenticate(orm.em.fork(), `Bearer ${live.apiKey}`),
    ).resolves.toMatchObject({
      merchantId: merchant.id,
    });
  });
});
