import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { AuthService } from '../../src/merchants/auth.service';
import { MerchantService } from '../../src/merchants/merchant.service';
import { ApiKeyService, MAX_LIVE_KEYS } from '../../src/merchants/api-key.service';
import { AuditLogService } from '../../src/audit';
import { KeyEnvironment } from '../../src/domain/key-environment';
import { DomainError, ErrorCode } from '../../src/domain/errors';
import { createTestDatabase, openTestOrm } from '../support/db';
import { outboxEvents } from '../../src/events';
import { webhookEnvelope } from '../../src/flows/webhook-envelope';

async function codeOf(promise: Promise<unknown>): Promise<ErrorCode> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return (error as DomainError).code;
}

describe('merchant-managed API keys (real PostgreSQL)', () => {
  let orm: MikroORM;
  const clock = new ManualClock('2026-05-01T10:00:00Z');
  const merchants = new MerchantService(clock);
  const auditLog = new AuditLogService(clock);
  const keys = new ApiKeyService(clock, KeyEnvironment.Sandbox, auditLog);
  const auth = new AuthService(KeyEnvironment.Sandbox, clock, 86_400);

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
  });
  afterAll(() => orm.close());

  async function merchantWithKey(name: string) {
    const merchant = await merchants.create(orm.em.fork(), name);
    const issued = await merchants.issueKey(orm.em.fork(), merchant.id, KeyEnvironment.Sandbox);
    return { merchantId: merchant.id, keyId: issued.keyId };
  }

  it('creates a restricted key that authenticates with its scopes and addresses', async () => {
    const { merchantId, keyId } = await merchantWithKey('Scoped Co');
    const { key, secret } = await keys.create(orm.em.fork(), merchantId, keyId, {
      name: ' Reporting ',
      scopes: ['deposits:read', 'deposits:read', 'rates:read'],
      allowedIps: ['127.0.0.2/32'],
    });
    expect(secret).toMatch(/^rk_test_[A-Za-z0-9]{30,}$/);
    expect(key).toMatchObject({
      name: 'Reporting',
      scopes: ['deposits:read', 'rates:read'],
      allowedIps: ['127.0.0.2/32'],
      keyPrefix: secret.slice(0, 12),
      revokedAt: null,
    });
    const principal = await auth.authenticate(orm.em.fork(), `Bearer ${secret}`);
    expect(principal).toMatchObject({ kind: 'secret_key', merchantId, keyId: key.id });
    if (principal.kind !== 'secret_key') throw new Error('not a key');
    expect(principal.scopes).toEqual(['deposits:read', 'rates:read']);
    expect(principal.allowedIps!('127.0.0.2')).toBe(true);
    expect(principal.allowedIps!('127.0.0.1')).toBe(false);

    const { secret: full } = await keys.create(orm.em.fork(), merchantId, keyId, {
      name: 'Server',
      scopes: ['all'],
    });
    expect(full).toMatch(/^sk_test_/);
    const fullPrincipal = await auth.authenticate(orm.em.fork(), `Bearer ${full}`);
    expect(fullPrincipal).toMatchObject({ scopes: ['all'] });
    expect('allowedIps' in fullPrincipal).toBe(false);
  });

  it.each([
    ['all mixed with another scope', { name: 'x', scopes: ['all', 'rates:read'] }],
    ['an unknown scope', { name: 'x', scopes: ['deposits:write'] }],
    ['an empty scope list', { name: 'x', scopes: [] }],
    ['an empty name', { name: '  ', scopes: ['all'] }],
    ['a name over 100 characters', { name: 'n'.repeat(101), scopes: ['all'] }],
    ['a bad address', { name: 'x', scopes: ['all'], allowedIps: ['10.0.0.0/40'] }],
    ['an empty address list', { name: 'x', scopes: ['all'], allowedIps: [] }],
  ])('refuses %s with invalid_parameter', async (_label, input) => {
    const { merchantId, keyId } = await merchantWithKey('Bad Input Co');
    expect(await codeOf(keys.create(orm.em.fork(), merchantId, keyId, input))).toBe(
      ErrorCode.InvalidParameter,
    );
  });

  it('lists keys newest first, operator keys included, never a secret', async () => {
    const { merchantId, keyId } = await merchantWithKey('List Co');
    clock.advance(1000);
    const { key } = await keys.create(orm.em.fork(), merchantId, keyId, {
      name: 'Later',
      scopes: ['balance:read'],
    });
    const page = await keys.list(orm.em.fork(), merchantId, { offset: 0, limit: 20 });
    expect(page.total).toBe(2);
    expect(page.keys.map((k) => [k.id, k.name])).toEqual([
      [key.id, 'Later'],
      [keyId, null],
    ]);
    expect(JSON.stringify(page)).not.toMatch(/[sr]k_test_[A-Za-z0-9]{20}/);
    const first = await keys.listAfter(orm.em.fork(), merchantId, null, 1);
    expect(first.keys.map((k) => k.id)).toEqual([key.id]);
    expect(first.hasMore).toBe(true);
    const second = await keys.listAfter(
      orm.em.fork(),
      merchantId,
      { createdAt: key.createdAt, id: key.id },
      1,
    );
    expect(second.keys.map((k) => k.id)).toEqual([keyId]);
    expect(second.hasMore).toBe(false);
  });

  it('revokes at once, answers the same again, and hides other merchants keys (404)', async () => {
    const { merchantId, keyId } = await merchantWithKey('Revoke Co');
    const other = await merchantWithKey('Other Co');
    const { key, secret } = await keys.create(orm.em.fork(), merchantId, keyId, {
      name: 'Temp',
      scopes: ['rates:read'],
    });
    expect(await codeOf(keys.revoke(orm.em.fork(), other.merchantId, other.keyId, key.id))).toBe(
      ErrorCode.NotFound,
    );
    const revoked = await keys.revoke(orm.em.fork(), merchantId, keyId, key.id);
    expect(revoked.revokedAt).toEqual(clock.now());
    clock.advance(5000);
    expect(await keys.revoke(orm.em.fork(), merchantId, keyId, key.id)).toEqual(revoked);
    expect(await codeOf(auth.authenticate(orm.em.fork(), `Bearer ${secret}`))).toBe(
      ErrorCode.Unauthorized,
    );
    const audit = await orm.em
      .fork()
      .getConnection()
      .execute<Array<{ action: string; actor: string }>>(
        'select action, actor from audit_log where target_id = ? order by created_at, id',
        [key.id],
      );
    expect(audit).toEqual([
      { action: 'api_key.create', actor: `api_key:${keyId}` },
      { action: 'api_key.revoke', actor: `api_key:${keyId}` },
    ]);
  });

  it(`holds a merchant to ${MAX_LIVE_KEYS} unrevoked keys, even when created at once`, async () => {
    const { merchantId, keyId } = await merchantWithKey('Limit Co');
    // One live key already (the operator's); 120 creations race for the other 99 places.
    const results = await Promise.allSettled(
      Array.from({ length: 120 }, (_, i) =>
        keys.create(orm.em.fork(), merchantId, keyId, { name: `k${i}`, scopes: ['rates:read'] }),
      ),
    );
    const created = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(created).toHaveLength(MAX_LIVE_KEYS - 1);
    expect(refused).toHaveLength(21);
    for (const r of refused) expect((r.reason as DomainError).code).toBe(ErrorCode.LimitExceeded);
    const [{ live }] = await orm.em
      .fork()
      .getConnection()
      .execute<Array<{ live: string }>>(
        'select count(*) as live from api_keys where merchant_id = ? and revoked_at is null',
        [merchantId],
      );
    expect(Number(live)).toBe(MAX_LIVE_KEYS);
    // A revoked key frees its place.
    const first = created[0] as PromiseFulfilledResult<{ key: { id: string } }>;
    await keys.revoke(orm.em.fork(), merchantId, keyId, first.value.key.id);
    await expect(
      keys.create(orm.em.fork(), merchantId, keyId, { name: 'again', scopes: ['rates:read'] }),
    ).resolves.toBeDefined();
  });

  it('keeps every existing key a secret key with all scopes (the migration default)', async () => {
    const { keyId } = await merchantWithKey('Old Co');
    const [row] = await orm.em
      .fork()
      .getConnection()
      .execute<Array<{ scopes: string[]; allowed_ips: null; name: null }>>(
        'select scopes, allowed_ips, name from api_keys where id = ?',
        [keyId],
      );
    expect(row).toEqual({ scopes: ['all'], allowed_ips: null, name: null });
  });

  it('announces creation and revocation as api_key.* events, without the secret', async () => {
    const { merchantId, keyId } = await merchantWithKey('Events Co');
    const { key, secret } = await keys.create(orm.em.fork(), merchantId, keyId, {
      name: 'Announced',
      scopes: ['deposits:read'],
      allowedIps: ['203.0.113.0/24'],
    });
    clock.advance(2000);
    await keys.revoke(orm.em.fork(), merchantId, keyId, key.id);
    const rows = await orm.em
      .fork()
      .getConnection()
      .execute<Array<{ id: string; kind: string }>>(
        `select id, kind from events where merchant_id = ? and snapshot->>'id' = ? order by seq`,
        [merchantId, key.id],
      );
    expect(rows.map((r) => r.kind)).toEqual(['api_key.created', 'api_key.revoked']);
    const events = await outboxEvents(
      orm.em.fork(),
      rows.map((r) => r.id),
    );
    const revoked = JSON.parse(webhookEnvelope(events.get(rows[1].id)!));
    expect(revoked).toMatchObject({
      event: 'api_key.revoked',
      data: {
        id: key.id,
        name: 'Announced',
        scopes: ['deposits:read'],
        allowed_ips: ['203.0.113.0/24'],
        key_prefix: key.keyPrefix,
        created_at: key.createdAt.toISOString(),
        revoked_at: clock.now().toISOString(),
      },
    });
    const created = webhookEnvelope(events.get(rows[0].id)!);
    expect(JSON.parse(created).data.revoked_at).toBeNull();
    expect(created + JSON.stringify(revoked)).not.toContain(secret);
    expect(created).not.toContain('key_hash');
  });
});
