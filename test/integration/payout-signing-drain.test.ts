import type { MikroORM } from '@mikro-orm/postgresql';
import { privateKeyToAccount } from 'viem/accounts';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import type { Chain } from '../../src/domain/assets';
import { LOCAL_HOT_WALLET_PRIVATE_KEY } from '../../src/embedded/local-chains';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import { startTestChains, type TestChains } from '../support/chains';
import { eventually } from '../support/stack';

const HOT_WALLET = privateKeyToAccount(LOCAL_HOT_WALLET_PRIVATE_KEY).address;
const DESTINATION = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

/**
 * The signing drain (issue 19): a chain's PENDING payouts are signed by one round in ONE
 * transaction and broadcast after commit; two runners' drains (two services instances on one
 * database) meet at the hot wallet's lock and never sign a nonce twice.
 */
describe('payout signing drain (real PostgreSQL, real anvil chains)', () => {
  let chains: TestChains;
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  /** A second runner's services: its own drain, same database and chains. */
  let other: Services;
  let kit: ReturnType<typeof depositKit>;

  beforeAll(async () => {
    chains = await startTestChains();
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock('2026-08-01T09:00:00Z');
    services = createServices(loadConfig({ ...chains.env }), clock);
    other = createServices(loadConfig({ ...chains.env }), clock);
    kit = depositKit(orm, services, clock);
  });
  afterAll(async () => {
    await orm?.close();
    await chains?.stop();
  });

  const em = () => orm.em.fork();
  const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
    orm.em.fork().getConnection().execute<T[]>(text, params);

  /** A converted AUTO_WITHDRAW deposit in PENDING_WITHDRAWAL with its PENDING payout. */
  async function convertedDeposit(merchantId: string, chain: Chain, ngn: string) {
    const onramp = await kit.onramp(merchantId, 'EPHEMERAL', undefined, {
      mode: 'AUTO_WITHDRAW',
      asset: 'USDC',
      chain,
      destinationAddress: DESTINATION,
    });
    const deposit = await kit.transfer(onramp.accountNumber, ngn);
    expect(await services.settlement.settle(em(), deposit.id)).toBe('PENDING_WITHDRAWAL');
    return deposit.id;
  }

  /** Each payout of the chain with its stored transactions and the transaction that wrote them. */
  const signedRows = (chain: Chain) =>
    sql<{ id: string; status: string; nonce: string; tx_count: number; xids: string[] }>(
      `select p.id, p.status, p.nonce, count(t.hash)::int as tx_count,
              array_agg(distinct t.xmin::text) as xids
         from payouts p left join payout_transactions t on t.payout_id = p.id
        where p.chain = ? group by p.id order by p.nonce::bigint`,
      [chain],
    );

  const sweepUntilSettled = (chain: Chain, count: number) =>
    eventually(
      async () => {
        await services.payoutSweep.sweep(em(), chain);
        const [{ done }] = await sql<{ done: number }>(
          "select count(*)::int as done from payouts where chain = ? and status = 'CONFIRMED'",
          [chain],
        );
        return done === count ? done : undefined;
      },
      30_000,
      200,
    );

  it('signs 30 PENDING payouts of one chain in one round, in ONE transaction, with contiguous nonces', async () => {
    const merchant = await kit.merchant();
    // One withdrawal among them: it must show BROADCAST once the round has relayed it.
    const funding = await kit.onramp(merchant);
    const funded = await kit.transfer(funding.accountNumber, '150000');
    expect(await services.settlement.settle(em(), funded.id)).toBe('SETTLED');
    const withdrawal = await services.withdrawals.request(em(), merchant, {
      amount: '12.5',
      asset: 'USDC',
      chain: 'BASE',
      destination_address: DESTINATION,
    });
    for (let i = 0; i < 29; i += 1) await convertedDeposit(merchant, 'BASE', `${15000 + i}`);
    const fromBlock = (await chains.publicClient('BASE').getBlockNumber()) + 1n;

    const totals = await services.payouts.signPending(em(), 'BASE');
    expect(totals).toEqual({ signed: 30, rejected: 0, cancelled: 0 });

    const rows = await signedRows('BASE');
    expect(rows).toHaveLength(30);
    expect(rows.every((r) => r.status === 'SIGNED' && r.tx_count === 1)).toBe(true);
    const nonces = rows.map((r) => Number(r.nonce));
    expect(nonces).toEqual(nonces.map((_, k) => nonces[0] + k));
    // Every payout_transactions row was written by the same database transaction.
    expect(new Set(rows.flatMap((r) => r.xids)).size).toBe(1);
    const [wallet] = await sql<{ next_nonce: string }>(
      'select next_nonce from hot_wallet_nonces where chain = ?',
      ['BASE'],
    );
    expect(Number(wallet.next_nonce)).toBe(nonces[29] + 1);
    // Broadcast right after commit and recorded: no sweep has run yet.
    const [{ unrecorded }] = await sql<{ unrecorded: number }>(
      "select count(*)::int as unrecorded from payouts where chain = 'BASE' and broadcast_at is null",
    );
    expect(unrecorded).toBe(0);
    expect((await services.withdrawals.get(em(), merchant, withdrawal.id)).status).toBe(
      'BROADCAST',
    );

    await sweepUntilSettled('BASE', 30);
    const logs = (await chains.transferLogs('BASE', 'USDC', fromBlock)).filter(
      (log) => log.from === HOT_WALLET && log.to === DESTINATION,
    );
    expect(logs).toHaveLength(30);
  }, 120_000);

  it('two runners draining the same chain at once never sign a nonce twice', async () => {
    const merchant = await kit.merchant();
    for (let i = 0; i < 15; i += 1) await convertedDeposit(merchant, 'ETHEREUM', `${16000 + i}`);
    const fromBlock = (await chains.publicClient('ETHEREUM').getBlockNumber()) + 1n;

    // Both runners woken at once, twice each (a wake during a run asks for another round),
    // while 15 more payouts arrive and wake them again.
    const runs = [
      services.payouts.signPending(em(), 'ETHEREUM'),
      other.payouts.signPending(em(), 'ETHEREUM'),
      services.payouts.signPending(em(), 'ETHEREUM'),
      other.payouts.signPending(em(), 'ETHEREUM'),
    ];
    for (let i = 0; i < 15; i += 1) {
      await convertedDeposit(merchant, 'ETHEREUM', `${17000 + i}`);
      runs.push(
        services.payouts.signPending(em(), 'ETHEREUM'),
        other.payouts.signPending(em(), 'ETHEREUM'),
      );
    }
    await Promise.all(runs);
    const [mine, theirs] = await Promise.all([
      services.payouts.signPending(em(), 'ETHEREUM'),
      other.payouts.signPending(em(), 'ETHEREUM'),
    ]);
    expect(mine.signed + theirs.signed).toBe(0);

    const rows = await signedRows('ETHEREUM');
    expect(rows).toHaveLength(30);
    expect(rows.filter((r) => r.status !== 'SIGNED' || r.tx_count !== 1)).toEqual([]);
    const [{ stored, distinct }] = await sql<{ stored: number; distinct: number }>(
      `select count(*)::int as stored, count(distinct t.nonce)::int as distinct
         from payout_transactions t join payouts p on p.id = t.payout_id
        where p.chain = 'ETHEREUM'`,
    );
    expect({ stored, distinct }).toEqual({ stored: 30, distinct: 30 });
    const nonces = rows.map((r) => Number(r.nonce));
    expect(nonces).toEqual(nonces.map((_, k) => nonces[0] + k));

    await sweepUntilSettled('ETHEREUM', 30);
    const logs = (await chains.transferLogs('ETHEREUM', 'USDC', fromBlock)).filter(
      (log) => log.from === HOT_WALLET && log.to === DESTINATION,
    );
    expect(logs).toHaveLength(30);
  }, 120_000);

  it('gathers: notices start one round, after the window, signing every PENDING payout in one transaction', async () => {
    const merchant = await kit.merchant();
    for (let i = 0; i < 3; i += 1) await convertedDeposit(merchant, 'POLYGON', `${18000 + i}`);
    const started = performance.now();
    services.payouts.signPendingSoon(em, 'POLYGON', 400);
    // More notices inside the window start nothing more.
    for (let i = 0; i < 3; i += 1) services.payouts.signPendingSoon(em, 'POLYGON', 400);
    const rows = await eventually(
      async () => {
        const r = await signedRows('POLYGON');
        return r.length === 3 && r.every((row) => row.status === 'SIGNED') ? r : undefined;
      },
      10_000,
      20,
    );
    // Nothing was signed before the window closed.
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
    // One round signed them: one transaction wrote every payout_transactions row.
    expect(new Set(rows.flatMap((r) => r.xids)).size).toBe(1);
  }, 60_000);
});
