import type { MikroORM } from '@mikro-orm/postgresql';
import pino from 'pino';
import type { Hex } from 'viem';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import type { Chain } from '../../src/domain/assets';
import { PayoutBlockFollower } from '../../src/payouts';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import { startTestChains, type TestChains } from '../support/chains';
import { eventually } from '../support/stack';

const DESTINATION = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

// Confirmation by block (issue 19): the follower alone settles payouts here; no test in this
// file runs the process-payouts sweep except to fee-bump (b), and never while a block with
// our transaction exists.
describe('payout block follower (real PostgreSQL, real anvil chains)', () => {
  let chains: TestChains;
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;
  const followers: PayoutBlockFollower[] = [];
  const log = pino({ level: 'silent' });

  beforeAll(async () => {
    chains = await startTestChains();
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock('2026-08-01T09:00:00Z');
    services = createServices(loadConfig({ ...chains.env }), clock);
    kit = depositKit(orm, services, clock);
  });
  afterEach(async () => {
    await Promise.all(followers.map((f) => f.stop()));
    followers.length = 0;
  });
  afterAll(async () => {
    await orm?.close();
    await chains?.stop();
  });

  const em = () => orm.em.fork();
  const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
    orm.em.fork().getConnection().execute<T[]>(text, params);
  const rpc = (chain: Chain, method: string, params: unknown[] = []) =>
    (chains.publicClient(chain).request as (args: unknown) => Promise<unknown>)({
      method,
      params,
    });
  const pauseMining = (chain: Chain) =>
    Promise.all([rpc(chain, 'evm_setIntervalMining', [0]), rpc(chain, 'evm_setAutomine', [false])]);
  const resumeMining = (chain: Chain) => rpc(chain, 'evm_setIntervalMining', [1]);

  /** A follower as the runner starts it; `booked` counts the payouts it booked itself. */
  function startFollower(): { booked: () => number } {
    let booked = 0;
    const follower = new PayoutBlockFollower(services.chains, async (tx, mined) => {
      const n = await services.payouts.settleMined(tx, mined);
      booked += n;
      return n;
    });
    follower.start({ pollMs: 100, openEm: em, log });
    followers.push(follower);
    return { booked: () => booked };
  }

  /** A SIGNED, broadcast payout of a converted AUTO_WITHDRAW deposit. */
  async function sentDeposit(merchantId: string, chain: Chain, ngn = '15000') {
    const onramp = await kit.onramp(merchantId, 'EPHEMERAL', undefined, {
      mode: 'AUTO_WITHDRAW',
      asset: 'USDC',
      chain,
      destinationAddress: DESTINATION,
    });
    const deposit = await kit.transfer(onramp.accountNumber, ngn);
    expect(await services.settlement.settle(em(), deposit.id)).toBe('PENDING_WITHDRAWAL');
    const [payout] = await sql<{ id: string }>('select id from payouts where deposit_id = ?', [
      deposit.id,
    ]);
    expect(await services.payouts.send(em(), payout.id)).toBe('signed');
    return { depositId: deposit.id, payoutId: payout.id };
  }

  const payoutRows = (ids: string[]) =>
    sql<{ id: string; status: string; tx_hash: string; block_number: string; xid: string }>(
      `select id, status, tx_hash, block_number::text, xmin::text as xid
         from payouts where id in (select jsonb_array_elements_text(?::jsonb)) order by id`,
      [JSON.stringify(ids)],
    );
  const allSettled = (depositIds: string[]) =>
    eventually(
      async () => {
        const deposits = await Promise.all(depositIds.map((id) => kit.reload(id)));
        return deposits.every((d) => d.status === 'SETTLED') ? deposits : undefined;
      },
      20_000,
      100,
    );

  it('(a) settles every payout of a block (deposits and a withdrawal) in one transaction, with no sweep', async () => {
    const merchant = await kit.merchant();
    const funded = await kit.onramp(merchant);
    const credit = await kit.transfer(funded.accountNumber, '150000');
    expect(await services.settlement.settle(em(), credit.id)).toBe('SETTLED');
    await pauseMining('BASE');
    try {
      const sent = [];
      for (let i = 0; i < 3; i += 1) sent.push(await sentDeposit(merchant, 'BASE', `${15000 + i}`));
      const withdrawal = await services.withdrawals.request(em(), merchant, {
        amount: '12.5',
        asset: 'USDT',
        chain: 'BASE',
        destination_address: DESTINATION,
      });
      const [withdrawalPayout] = await sql<{ id: string }>(
        'select id from payouts where withdrawal_id = ?',
        [withdrawal.id],
      );
      expect(await services.payouts.send(em(), withdrawalPayout.id)).toBe('signed');
      const ids = [...sent.map((s) => s.payoutId), withdrawalPayout.id];

      const follower = startFollower();
      await rpc('BASE', 'evm_mine');
      const deposits = await allSettled(sent.map((s) => s.depositId));
      const done = await eventually(
        async () => {
          const w = await services.withdrawals.get(em(), merchant, withdrawal.id);
          return w.status === 'COMPLETED' ? w : undefined;
        },
        10_000,
        100,
      );

      const rows = await payoutRows(ids);
      expect(rows.map((r) => r.status)).toEqual([
        'CONFIRMED',
        'CONFIRMED',
        'CONFIRMED',
        'CONFIRMED',
      ]);
      // One block, and one transaction: the same xmin on every payout row it wrote.
      expect(new Set(rows.map((r) => r.block_number)).size).toBe(1);
      expect(new Set(rows.map((r) => r.xid)).size).toBe(1);
      expect(follower.booked()).toBe(4);
      for (const deposit of deposits) {
        const payout = rows.find((r) => r.tx_hash === deposit.txHash);
        expect(payout).toBeDefined();
      }
      expect(done.txHash).toBe(rows.find((r) => r.id === withdrawalPayout.id)!.tx_hash);
      const events = await Promise.all(sent.map((s) => kit.events(s.depositId)));
      for (const e of events)
        expect(e.at(-1)).toEqual({ kind: 'deposit.settled', status: 'SETTLED' });
    } finally {
      await resumeMining('BASE');
    }
  });

  it('(b) settles a fee-bumped payout whose replacement is mined', async () => {
    const merchant = await kit.merchant();
    await pauseMining('BASE');
    try {
      const { depositId, payoutId } = await sentDeposit(merchant, 'BASE');
      clock.advance(services.config.PAYOUT_STUCK_SECONDS * 1000);
      // The sweep bumps (nothing is mined, so it has nothing to confirm).
      const report = await services.payoutSweep.sweep(em(), 'BASE');
      expect(report.bumped).toBe(1);
      const stored = await sql<{ hash: string }>(
        'select hash from payout_transactions where payout_id = ? order by created_at',
        [payoutId],
      );
      expect(stored).toHaveLength(2);

      startFollower();
      await rpc('BASE', 'evm_mine');
      const [deposit] = await allSettled([depositId]);
      expect(deposit.txHash).toBe(stored[1].hash);
      const [row] = await payoutRows([payoutId]);
      expect(row).toMatchObject({ status: 'CONFIRMED', tx_hash: stored[1].hash });
    } finally {
      await resumeMining('BASE');
    }
  });

  it('(c) a follower started after the blocks were mined catches up from its start window', async () => {
    const merchant = await kit.merchant();
    const sent = [await sentDeposit(merchant, 'ETHEREUM'), await sentDeposit(merchant, 'POLYGON')];
    const hashes = await sql<{ tx_hash: Hex; chain: Chain }>(
      `select tx_hash, chain from payouts where id in (?, ?)`,
      sent.map((s) => s.payoutId),
    );
    // Mined (interval mining, 1 s blocks) before any follower runs.
    for (const { tx_hash, chain } of hashes) {
      await eventually(
        () =>
          chains
            .publicClient(chain)
            .getTransactionReceipt({ hash: tx_hash })
            .catch(() => undefined),
        10_000,
        100,
      );
    }
    for (const s of sent) expect((await kit.reload(s.depositId)).status).toBe('PENDING_WITHDRAWAL');

    const follower = startFollower();
    await allSettled(sent.map((s) => s.depositId));
    expect(follower.booked()).toBe(2);
  });

  it('(d) two followers on one database book each payout once', async () => {
    const merchant = await kit.merchant();
    const all = ['BASE', 'ETHEREUM', 'POLYGON'] as const;
    // Each chain's payouts wait in one block that both followers meet at about the same time.
    await Promise.all(all.map(pauseMining));
    const sent = [];
    try {
      for (const chain of all) {
        for (let i = 0; i < 3; i += 1)
          sent.push(await sentDeposit(merchant, chain, `${16000 + i}`));
      }
    } finally {
      await Promise.all(all.map(resumeMining));
    }
    const one = startFollower();
    const two = startFollower();
    await allSettled(sent.map((s) => s.depositId));
    expect(one.booked() + two.booked()).toBe(sent.length);
    const entries = await sql<{ payout_id: string; n: string }>(
      `select payout_id, count(*)::text as n from ledger_transactions
        where kind = 'payout_sent' and payout_id in (select jsonb_array_elements_text(?::jsonb))
        group by payout_id`,
      [JSON.stringify(sent.map((s) => s.payoutId))],
    );
    expect(entries).toHaveLength(sent.length);
    expect(entries.every((e) => e.n === '1')).toBe(true);
    const events = await sql<{ n: string }>(
      `select count(*)::text as n from events
        where kind = 'deposit.settled' and deposit_id in (select jsonb_array_elements_text(?::jsonb))`,
      [JSON.stringify(sent.map((s) => s.depositId))],
    );
    expect(events[0].n).toBe(String(sent.length));
  });
});
