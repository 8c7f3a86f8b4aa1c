import type { MikroORM } from '@mikro-orm/postgresql';
import { BushaClient } from '../../src/adapters/fx/busha/busha-client';
import { BushaFxVenue, type BushaVenueOptions } from '../../src/adapters/fx/busha/busha-fx-venue';
import { FxOrderBusy } from '../../src/adapters/fx/busha/fx-order-store';
import {
  FxPermanentFailure,
  FxTemporaryFailure,
  type FxOrder,
} from '../../src/adapters/fx/fx-venue';
import { ManualClock } from '../../src/clock';
import { dec } from '../../src/domain/money';
import { createTestDatabase, openTestOrm } from '../support/db';
import { BushaStandIn } from '../support/fx-venue-stand-in';

const SECRET = 'c3RhbmQtaW46c2VjcmV0LWtleQ==';

/**
 * The Busha venue against the Busha stand-in (a real HTTP server) on a real database: fills,
 * the mapping of refusals, and an order converting once whatever is lost between placing and
 * recording (an answer lost, a process whose lease passed, a quote that expired unexecuted).
 */
describe('Busha FX venue (stand-in, real PostgreSQL)', () => {
  let orm: MikroORM;
  let standIn: BushaStandIn;
  const clock = new ManualClock('2026-09-01T10:00:00Z');
  let serial = 0;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    standIn = await new BushaStandIn(SECRET).start();
  });
  afterAll(async () => {
    await standIn.stop();
    await orm.close();
  });
  beforeEach(() => {
    standIn.rateNgn = '1500';
    standIn.finalStatus = 'funds_converted';
    standIn.refuseQuotes = undefined;
    standIn.pageSize = 20;
  });

  const venue = (options: Partial<BushaVenueOptions> & { timeoutMs?: number; key?: string } = {}) =>
    new BushaFxVenue(
      orm.em.fork(),
      clock,
      new BushaClient({
        baseUrl: standIn.url,
        secretKey: options.key ?? SECRET,
        timeoutMs: options.timeoutMs ?? 5000,
      }),
      { targetCurrency: 'USDT', leaseMs: 10_000, pollDelaysMs: [20, 50], ...options },
    );
  const order = (amountNgn: string): FxOrder => {
    serial += 1;
    return {
      clientOrderId: `dep_it_${serial}`,
      merchantId: 'mer_1',
      amountNgn: dec(amountNgn),
      marketRateNgnPerUsd: dec('1500'),
    };
  };
  const row = async (clientOrderId: string) => {
    const [found] = await orm.em
      .fork()
      .getConnection()
      .execute(
        `select status, quote_id, quote_ids, transfer_id, usd_bought::text as usd_bought,
                lease_holder from fx_venue_orders where client_order_id = ?`,
        [clientOrderId],
      );
    return found as {
      status: string;
      quote_id: string | null;
      quote_ids: string[];
      transfer_id: string | null;
      usd_bought: string | null;
      lease_holder: string | null;
    };
  };
  const conversionsOf = async (clientOrderId: string) =>
    standIn.executionsOf((await row(clientOrderId)).quote_ids);

  it('fills an order through a quote and its transfer, exactly; placing it again asks nothing', async () => {
    const o = order('50000.25');
    const fill = await venue().execute(o);
    // 50,000.25 / 1,500 = 33.33350000 at the venue; 6 decimals rounded down.
    expect(fill.usdBought.toFixed()).toBe('33.3335');
    expect(fill.venueReference).toMatch(/^TRF_/);
    expect(await row(o.clientOrderId)).toMatchObject({
      status: 'FILLED',
      transfer_id: fill.venueReference,
      usd_bought: '33.333500',
      lease_holder: null,
    });
    const asked = standIn.requests.length;
    expect(await venue().execute(o)).toEqual(fill);
    expect(standIn.requests.length).toBe(asked);
    expect(await conversionsOf(o.clientOrderId)).toHaveLength(1);
    // Busha's authentication: the secret key as a Bearer token on every request.
    expect(standIn.requests.every((r) => r.authorization === `Bearer ${SECRET}`)).toBe(true);
  });

  it('an execute whose answer is lost (timeout) converts once: the retry finds its transfer', async () => {
    const o = order('15000');
    const held = standIn.holdNextExecute();
    await expect(venue({ timeoutMs: 300 }).execute(o)).rejects.toThrow(/abort|timeout/i);
    await held.arrived;
    expect(await row(o.clientOrderId)).toMatchObject({ status: 'EXECUTING', transfer_id: null });
    const fill = await venue().execute(o);
    held.release();
    expect(fill.usdBought.toFixed()).toBe('10');
    expect(await conversionsOf(o.clientOrderId)).toHaveLength(1);
    expect((await row(o.clientOrderId)).quote_ids).toHaveLength(1);
  });

  it('a lost answer whose quote expired since is still found, never quoted again', async () => {
    const o = order('6000');
    const held = standIn.holdNextExecute();
    await expect(venue({ timeoutMs: 300 }).execute(o)).rejects.toThrow(/abort|timeout/i);
    await held.arrived;
    const { quote_id: quoteId } = await row(o.clientOrderId);
    standIn.quotes.get(quoteId!)!.expiresAt = Date.now() - 1;
    const fill = await venue().execute(o);
    held.release();
    expect(fill.usdBought.toFixed()).toBe('4');
    expect((await row(o.clientOrderId)).quote_ids).toEqual([quoteId]);
    expect(await conversionsOf(o.clientOrderId)).toHaveLength(1);
  });

  it('a process whose lease passed while its execute was out converts nothing more', async () => {
    const o = order('30000');
    const held = standIn.holdNextExecute();
    const first = venue().execute(o);
    await held.arrived;
    // Meanwhile another process may not place the order: its lease runs.
    await expect(venue().execute(o)).rejects.toBeInstanceOf(FxOrderBusy);
    // The first process stalls past its lease (as one killed would): the next one takes over.
    clock.advance(10_001);
    const fill = await venue().execute(o);
    expect(fill.usdBought.toFixed()).toBe('20');
    held.release();
    await expect(first).rejects.toBeInstanceOf(FxOrderBusy);
    expect(await conversionsOf(o.clientOrderId)).toHaveLength(1);
    expect(await row(o.clientOrderId)).toMatchObject({
      status: 'FILLED',
      transfer_id: fill.venueReference,
    });
  });

  it('finds the transfer of a recorded quote pages deep in GET /v1/transfers', async () => {
    const o = order('4500');
    standIn.failNext('execute', 500);
    await expect(venue().execute(o)).rejects.toThrow(/500/);
    // The 500 came from the execute: whether it converted is unknown, so it was looked up.
    expect(await conversionsOf(o.clientOrderId)).toHaveLength(0);
    const { quote_id: quoteId } = await row(o.clientOrderId);
    // Not found: the next placement executes the same quote (a quote executes once at most).
    standIn.pageSize = 2;
    for (let i = 0; i < 5; i += 1) await venue().execute(order(`${2000 + i}`));
    const fill = await venue().execute(o);
    expect(fill.usdBought.toFixed()).toBe('3');
    expect(standIn.executionsOf([quoteId!])).toHaveLength(1);
    // Placed again after a crash that lost the recording: the lookup pages to it.
    await orm.em
      .fork()
      .getConnection()
      .execute(
        `update fx_venue_orders set status = 'EXECUTING', transfer_id = null, usd_bought = null
          where client_order_id = ?`,
        [o.clientOrderId],
      );
    for (let i = 0; i < 5; i += 1) await venue().execute(order(`${3000 + i}`));
    expect(await venue().execute(o)).toEqual(fill);
    expect(await conversionsOf(o.clientOrderId)).toHaveLength(1);
  });

  it('a quote that expired before its execute is replaced under the same client order id', async () => {
    const o = order('7500');
    standIn.failNext('execute', 502);
    await expect(venue().execute(o)).rejects.toThrow(/502/);
    const { quote_id: first } = await row(o.clientOrderId);
    standIn.quotes.get(first!)!.expiresAt = Date.now() - 1;
    const fill = await venue().execute(o);
    expect(fill.usdBought.toFixed()).toBe('5');
    const recorded = await row(o.clientOrderId);
    expect(recorded.quote_ids).toHaveLength(2);
    expect(recorded.quote_ids[0]).toBe(first);
    expect(standIn.executionsOf([first!])).toHaveLength(0);
    expect(await conversionsOf(o.clientOrderId)).toHaveLength(1);
  });

  it('maps refusals: 503 / 429 / insufficient balance / bad key are temporary', async () => {
    standIn.failNext('quote', 503);
    await expect(venue().execute(order('1000'))).rejects.toBeInstanceOf(FxTemporaryFailure);
    standIn.failNext('quote', 429);
    await expect(venue().execute(order('1000'))).rejects.toBeInstanceOf(FxTemporaryFailure);
    standIn.failNext('execute', 400, 1, 'insufficient NGN balance');
    const short = order('1000');
    await expect(venue().execute(short)).rejects.toBeInstanceOf(FxTemporaryFailure);
    expect(await conversionsOf(short.clientOrderId)).toHaveLength(0);
    await expect(
      venue({ key: 'not-the-secret-key' }).execute(order('1000')),
    ).rejects.toBeInstanceOf(FxTemporaryFailure);
    // Once the venue can fill, the same order converts (with the quote it already has).
    const fill = await venue().execute(short);
    expect(fill.usdBought.toFixed()).toBe('0.666666');
    expect(await conversionsOf(short.clientOrderId)).toHaveLength(1);
  });

  it('maps refusals: below the minimum, an unsupported pair, a refused account are permanent', async () => {
    await expect(venue().execute(order('50'))).rejects.toBeInstanceOf(FxPermanentFailure);
    await expect(venue({ targetCurrency: 'XAU' }).execute(order('1000'))).rejects.toThrow(
      /not supported/,
    );
    standIn.refuseQuotes = 'account restricted';
    await expect(venue().execute(order('1000'))).rejects.toBeInstanceOf(FxPermanentFailure);
    standIn.refuseQuotes = undefined;
    standIn.failNext('quote', 403, 1, 'forbidden');
    await expect(venue().execute(order('1000'))).rejects.toBeInstanceOf(FxPermanentFailure);
  });

  it('a transfer that ends cancelled converts nothing (temporary); placed again it converts once', async () => {
    const o = order('9000');
    standIn.finalStatus = 'cancelled';
    await expect(venue().execute(o)).rejects.toBeInstanceOf(FxTemporaryFailure);
    expect(await row(o.clientOrderId)).toMatchObject({ status: 'CANCELLED', transfer_id: null });
    standIn.finalStatus = 'funds_converted';
    const fill = await venue().execute(o);
    expect(fill.usdBought.toFixed()).toBe('6');
    const transfers = await conversionsOf(o.clientOrderId);
    expect(transfers.map((t) => t.status).sort()).toEqual(['cancelled', 'funds_converted']);
  });

  it('a transfer still processing after the polls is unknown, then read again by its id', async () => {
    const o = order('3000');
    standIn.finalStatus = 'processing';
    await expect(venue().execute(o)).rejects.toThrow(/still processing/);
    const { transfer_id: transferId } = await row(o.clientOrderId);
    expect(transferId).toMatch(/^TRF_/);
    standIn.transfers.find((t) => t.id === transferId)!.status = 'funds_converted';
    expect((await venue().execute(o)).venueReference).toBe(transferId);
    expect(await conversionsOf(o.clientOrderId)).toHaveLength(1);
  });

  it('a batch places every order, a few at a time, each once', async () => {
    const orders = Array.from({ length: 9 }, (_, i) => order(`${1500 * (i + 1)}`));
    const outcomes = await venue({ concurrency: 3 }).executeAll(orders);
    expect(outcomes.map((x) => ('fill' in x ? x.fill.usdBought.toFixed() : 'error'))).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
    ]);
    for (const o of orders) expect(await conversionsOf(o.clientOrderId)).toHaveLength(1);
  });
});
