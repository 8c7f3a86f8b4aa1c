import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/services';
import { dec } from '../../src/domain/money';
import { createTestDatabase, openTestOrm } from '../support/db';

const market = {
  name: 'fixed',
  marketRates: async () => ({ USD: dec(1500), USDC: dec(1500), USDT: dec(1501) }),
};

describe('deposit core (smoke)', () => {
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock('2026-07-01T12:00:00Z');
    services = createServices(loadConfig({}), clock);
  });
  afterAll(() => orm.close());

  it('receives, settles and books a deposit', async () => {
    const merchant = await services.merchants.create(orm.em.fork(), 'Smoke');
    await services.rates.publish(orm.em.fork(), market);
    const rate = await services.rates.current(orm.em.fork(), { from: 'NGN', to: 'USDC' });
    const { onramp } = await services.onramps.create(orm.em.fork(), merchant.id, {
      type: 'THROWAWAY',
      user: { email: 'a@example.com' },
      rateId: rate.id,
      settlement: { mode: 'MERCHANT_BALANCE' },
    });
    const out = await services.ingestion.receive(orm.em.fork(), {
      accountNumber: onramp.accountNumber,
      amountNgn: '15000',
      bankReference: 'REF-1',
    });
    expect(out.kind).toBe('deposit');
    if (out.kind !== 'deposit') return;
    expect(out.deposit.status).toBe('PENDING_FX');
    const again = await services.ingestion.receive(orm.em.fork(), {
      accountNumber: onramp.accountNumber,
      amountNgn: '15000',
      bankReference: 'REF-1',
    });
    expect(again.kind === 'deposit' && again.created).toBe(false);
    expect(await services.settlement.settle(orm.em.fork(), out.deposit.id)).toBe('SETTLED');
    const d = await services.deposits.get(orm.em.fork(), merchant.id, out.deposit.id);
    console.log(d);
    const balance = await services.ledger.balance(orm.em.fork(), merchant.id, merchant.createdAt);
    expect(balance.usdAvailable).toBe(d.amountAsset);
    const events = await orm.em.fork().getConnection().execute('select kind, snapshot from events order by seq');
    console.log(JSON.stringify(events, null, 1));
    const second = await services.ingestion.receive(orm.em.fork(), {
      accountNumber: onramp.accountNumber,
      amountNgn: '15000',
      bankReference: 'REF-2',
    });
    expect(second.kind === 'deposit' && second.deposit.flagReason).toBe('Second transfer to a throwaway onramp');
    const rev = await services.reversals.reverse(orm.em.fork(), 'REF-1');
    expect(rev.deposit.status).toBe('REVERSED');
  });
});
