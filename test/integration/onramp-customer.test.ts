import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { keyId, parseKey } from '../../src/crypto/secret-box';
import { Onramp } from '../../src/onramps/onramp.entity';
import { dec } from '../../src/domain/money';
import { openCustomer } from '../../src/onramps';
import { createTestDatabase, openTestOrm } from '../support/db';
import { onrampCli } from '../support/stack';

const newKey = () => randomBytes(32).toString('base64');
const market = {
  name: 'fixed',
  marketRates: async () => ({ USD: dec(1500), USDC: dec(1500), USDT: dec(1501) }),
};
const BVN = '22212345678';
const NIN = '70123456789';
const CUSTOMER = {
  firstName: 'Adaeze',
  lastName: 'Okafor',
  phone: '+2348031234567',
  bvn: BVN,
  nin: NIN,
};

interface CustomerRow {
  customer_sealed: string | null;
  customer_fields: string[] | null;
  customer_bvn_last4: string | null;
  customer_nin_last4: string | null;
}

/** The onramp's customer record at rest: sealed, its plain summary, key rotation. */
describe('onramp customer records (real PostgreSQL)', () => {
  let orm: MikroORM;
  let databaseUrl: string;
  const clock = new ManualClock('2026-07-01T12:00:00Z');
  const first = newKey();
  const second = newKey();
  const servicesWith = (env: Record<string, string>): Services =>
    createServices(loadConfig({ RATE_TTL_SECONDS: '86400', ...env }), clock);

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    orm = await openTestOrm(databaseUrl);
    await servicesWith({ ENCRYPTION_KEY: first }).rates.publish(orm.em.fork(), market);
  });
  afterAll(() => orm.close());

  const sql = <T>(query: string, params: unknown[] = []) =>
    orm.em.fork().getConnection().execute<T[]>(query, params);
  const customerRow = async (onrampId: string) =>
    (
      await sql<CustomerRow>(
        `select customer_sealed, customer_fields, customer_bvn_last4, customer_nin_last4
           from onramps where id = ?`,
        [onrampId],
      )
    )[0];

  async function createWith(services: Services, customer: object | null) {
    const merchant = await services.merchants.create(orm.em.fork(), 'Customer Co');
    const { onramp } = await services.onramps.create(orm.em.fork(), merchant.id, {
      type: 'PERMANENT',
      user: { email: 'ada@example.com' },
      settlement: { mode: 'MERCHANT_BALANCE' },
      customer,
    });
    return onramp;
  }

  it('stores the record sealed under ENCRYPTION_KEY, with only the summary in plain', async () => {
    const services = servicesWith({ ENCRYPTION_KEY: first });
    const onramp = await createWith(services, CUSTOMER);
    const row = await customerRow(onramp.id);
    expect(row.customer_sealed).toMatch(new RegExp(`^enc:v1:${keyId(parseKey(first)!)}:`));
    for (const secret of [BVN, NIN, '2348031234567', 'Adaeze', 'Okafor']) {
      expect(JSON.stringify(row)).not.toContain(secret);
    }
    expect(row).toMatchObject({
      customer_fields: ['first_name', 'last_name', 'phone', 'bvn', 'nin'],
      customer_bvn_last4: '5678',
      customer_nin_last4: '6789',
    });
    expect(await openCustomer(orm.em.fork(), services.encryption.box, onramp.id)).toEqual(CUSTOMER);
  });

  it('stores nothing without a record, and reads of the onramp never load the sealed value', async () => {
    const services = servicesWith({ ENCRYPTION_KEY: first });
    const without = await createWith(services, null);
    expect(await customerRow(without.id)).toEqual({
      customer_sealed: null,
      customer_fields: null,
      customer_bvn_last4: null,
      customer_nin_last4: null,
    });
    expect(await openCustomer(orm.em.fork(), services.encryption.box, without.id)).toBeNull();

    const withRecord = await createWith(services, { bvn: BVN });
    const read = await orm.em.fork().findOneOrFail(Onramp, { id: withRecord.id });
    expect(read.customerSealed ?? null).toBeNull(); // lazy: not selected
    expect(read.customerFields).toEqual(['bvn']);
    expect(read.customerBvnLast4).toBe('5678');
  });

  it('binds the record to its onramp: copied into another row it does not open', async () => {
    const services = servicesWith({ ENCRYPTION_KEY: first });
    const a = await createWith(services, CUSTOMER);
    const b = await createWith(services, CUSTOMER);
    const own = (await customerRow(b.id)).customer_sealed;
    await sql('update onramps set customer_sealed = ? where id = ?', [
      (await customerRow(a.id)).customer_sealed,
      b.id,
    ]);
    await expect(openCustomer(orm.em.fork(), services.encryption.box, b.id)).rejects.toThrow(
      /does not authenticate/,
    );
    await sql('update onramps set customer_sealed = ? where id = ?', [own, b.id]);
  });

  it('refuses plain columns that disagree with each other or a record stored in clear', async () => {
    const services = servicesWith({ ENCRYPTION_KEY: first });
    const onramp = await createWith(services, { bvn: BVN });
    for (const change of [
      `customer_sealed = '{"bvn":"${BVN}"}'`,
      'customer_sealed = null',
      'customer_bvn_last4 = null',
      "customer_bvn_last4 = 'abcd'",
      "customer_bvn_last4 = '45678'",
      "customer_nin_last4 = '1234'",
      "customer_fields = array['bvn', 'email']",
      "customer_fields = '{}'",
    ]) {
      await expect(sql(`update onramps set ${change} where id = ?`, [onramp.id])).rejects.toThrow(
        /violates check constraint/,
      );
    }
  });

  it('is moved to the new key by `onramp secrets reencrypt`, after which the old key can go', async () => {
    const before = servicesWith({ ENCRYPTION_KEY: first });
    const onramp = await createWith(before, CUSTOMER);
    const during = servicesWith({ ENCRYPTION_KEY: second, ENCRYPTION_KEY_PREVIOUS: first });
    expect(await openCustomer(orm.em.fork(), during.encryption.box, onramp.id)).toEqual(CUSTOMER);

    const report = (await onrampCli(databaseUrl, ['secrets', 'reencrypt', '--json'], {
      ENCRYPTION_KEY: second,
      ENCRYPTION_KEY_PREVIOUS: first,
    })) as { onramp_customers: number };
    // Every record this file stored so far was under the first key.
    const stored = await sql<{ n: number }>(
      'select count(*)::int as n from onramps where customer_sealed is not null',
    );
    expect(report.onramp_customers).toBe(stored[0].n);
    expect((await customerRow(onramp.id)).customer_sealed).toMatch(
      new RegExp(`^enc:v1:${keyId(parseKey(second)!)}:`),
    );

    const afterwards = servicesWith({ ENCRYPTION_KEY: second });
    expect(await openCustomer(orm.em.fork(), afterwards.encryption.box, onramp.id)).toEqual(
      CUSTOMER,
    );
    expect(
      await onrampCli(databaseUrl, ['secrets', 'reencrypt', '--json'], { ENCRYPTION_KEY: second }),
    ).toMatchObject({ onramp_customers: 0 });
  });
});
