import type { MikroORM } from '@mikro-orm/postgresql';
import pino from 'pino';
import { Writable } from 'node:stream';
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

// Reorgs (issue 35) on real anvil chains: a block the follower settled a payout from stops
// being canonical. The chain is the judge: at the end the payout's transaction must be in a
// canonical block (the same nonce, the same bytes), the payout must name that block, and the
// deposit must have been settled once (one ledger posting, one deposit.settled event).
describe('payout reorgs (real PostgreSQL, real anvil chains)', () => {
  let chains: TestChains;
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;
  const followers: PayoutBlockFollower[] = [];
  const lines: Array<Record<string, unknown>> = [];
  const log = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) {
          lines.push(JSON.parse(line) as Record<string, unknown>);
        }
        done();
      },
    }),
  );

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
  const rpc = <T = unknown>(chain: Chain, method: string, params: unknown[] = []) =>
    (chains.publicClient(chain).request as (args: unknown) => Promise<T>)({ method, params });
  const pauseMining = (chain: Chain) =>
    Promise.all([rpc(chain, 'evm_setIntervalMining', [0]), rpc(chain, 'evm_setAutomine', [false])]);
  const resumeMining = (chain: Chain) => rpc(chain, 'evm_setIntervalMining', [1]);

  function startFollower(): void {
    const follower = new PayoutBlockFollower(
      services.chains,
      (tx, mined) => services.payouts.settleMined(tx, mined),
      undefined,
      services.payoutReorgs,
    );
    follower.start({ pollMs: 100, openEm: em, log });
    followers.push(follower);
  }

  /** A SIGNED, broadcast payout of a converted AUTO_WITHDRAW deposit (mining paused). */
  async function sentDeposit(chain: Chain, ngn = '15000') {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant, 'EPHEMERAL', undefined, {
      mode: 'AUTO_WITHDRAW',
      asset: 'USDC',
      chain,
      destinationAddress: DESTINATION,
    });
    const deposit = await kit.transfer(onramp.accountNumber, ngn);
    expect(await services.settlement.settle(em(), deposit.id)).toBe('PENDING_WITHDRAWAL');
    const [payout] = await sql<{ id: string; tx_hash: Hex }>(
      'select id, tx_hash from payouts where deposit_id = ?',
      [deposit.id],
    );
    expect(await services.payouts.send(em(), payout.id)).toBe('signed');
    const [signed] = await sql<{ tx_hash: Hex; nonce: string }>(
      'select tx_hash, nonce::text from payouts where id = ?',
      [payout.id],
    );
    return {
      depositId: deposit.id,
      payoutId: payout.id,
      hash: signed.tx_hash,
      nonce: signed.nonce,
    };
  }

  const settledOnce = async (depositId: string, payoutId: string) => {
    const [{ n: postings }] = await sql<{ n: string }>(
      `select count(*)::text as n from ledger_transactions where payout_id = ? and kind = 'payout_sent'`,
      [payoutId],
    );
    const [{ n: events }] = await sql<{ n: string }>(
      `select count(*)::text as n from events where deposit_id = ? and kind = 'deposit.settled'`,
      [depositId],
    );
    return { postings, events };
  };

  /** Waits until the payout's transaction is in a canonical block and the payout names it. */
  const minedAgain = (chain: Chain, payoutId: string, hash: Hex, orphan: Hex) =>
    eventually(
      async () => {
        const receipt = await chains
          .publicClient(chain)
          .getTransactionReceipt({ hash })
          .catch(() => undefined);
        if (!receipt || receipt.blockHash === orphan) return undefined;
        const [row] = await sql<{ status: string; block_number: string; tx_hash: string }>(
          'select status, block_number::text, tx_hash from payouts where id = ?',
          [payoutId],
        );
        if (row.status !== 'CONFIRMED' || row.block_number !== receipt.blockNumber.toString()) {
          return undefined;
        }
        return { receipt, row };
      },
      30_000,
      200,
    );

  it('(a) a settled payout whose block is reverted (evm_snapshot/evm_revert) is sent again with the same bytes and settled once', async () => {
    await pauseMining('BASE');
    try {
      const sent = await sentDeposit('BASE');
      const snapshot = await rpc<Hex>('BASE', 'evm_snapshot');
      startFollower();
      await rpc('BASE', 'evm_mine');
      const settled = await eventually(async () => {
        const deposit = await kit.reload(sent.depositId);
        return deposit.status === 'SETTLED' ? deposit : undefined;
      });
      expect(settled.txHash).toBe(sent.hash);
      const first = await chains.publicClient('BASE').getTransactionReceipt({ hash: sent.hash });

      // The block that held the payout is gone and the chain grows past it without it.
      expect(await rpc('BASE', 'evm_revert', [snapshot])).toBe(true);
      await rpc('BASE', 'evm_mine');
      await rpc('BASE', 'evm_mine');
      await expect(
        chains.publicClient('BASE').getTransactionReceipt({ hash: sent.hash }),
      ).rejects.toThrow();
      await resumeMining('BASE');

      const again = await minedAgain('BASE', sent.payoutId, sent.hash, first.blockHash);
      expect(again.row.tx_hash).toBe(sent.hash);
      const tx = await chains.publicClient('BASE').getTransaction({ hash: sent.hash });
      expect(tx.nonce.toString()).toBe(sent.nonce);
      expect((await kit.reload(sent.depositId)).status).toBe('SETTLED');
      expect(await settledOnce(sent.depositId, sent.payoutId)).toEqual({
        postings: '1',
        events: '1',
      });
      // Settled before a reorg deeper than the finality depth: the operator is told.
      expect(lines.some((l) => l.alert === 'payout_reorged' && l.payoutId === sent.payoutId)).toBe(
        true,
      );
    } finally {
      await resumeMining('BASE');
    }
  });

  it('(b) anvil_reorg replacing the block that held a settled withdrawal: sent again, completed once', async () => {
    const merchant = await kit.merchant();
    const funded = await kit.onramp(merchant);
    const credit = await kit.transfer(funded.accountNumber, '150000');
    expect(await services.settlement.settle(em(), credit.id)).toBe('SETTLED');
    await pauseMining('POLYGON');
    try {
      const withdrawal = await services.withdrawals.request(em(), merchant, {
        amount: '12.5',
        asset: 'USDT',
        chain: 'POLYGON',
        destination_address: DESTINATION,
      });
      const [payout] = await sql<{ id: string }>('select id from payouts where withdrawal_id = ?', [
        withdrawal.id,
      ]);
      expect(await services.payouts.send(em(), payout.id)).toBe('signed');
      const [{ tx_hash: hash }] = await sql<{ tx_hash: Hex }>(
        'select tx_hash from payouts where id = ?',
        [payout.id],
      );
      startFollower();
      await rpc('POLYGON', 'evm_mine');
      await eventually(async () => {
        const w = await services.withdrawals.get(em(), merchant, withdrawal.id);
        return w.status === 'COMPLETED' ? w : undefined;
      });
      const first = await chains.publicClient('POLYGON').getTransactionReceipt({ hash });
      await rpc('POLYGON', 'evm_mine');
      // The last two blocks replaced by empty ones: the head's height is unchanged.
      await rpc('POLYGON', 'anvil_reorg', [2, []]);
      await rpc('POLYGON', 'evm_mine');
      await resumeMining('POLYGON');

      await minedAgain('POLYGON', payout.id, hash, first.blockHash);
      const w = await services.withdrawals.get(em(), merchant, withdrawal.id);
      expect(w).toMatchObject({ status: 'COMPLETED', txHash: hash });
      const [{ n }] = await sql<{ n: string }>(
        `select count(*)::text as n from ledger_transactions where payout_id = ? and kind = 'payout_sent'`,
        [payout.id],
      );
      expect(n).toBe('1');
      const [{ n: events }] = await sql<{ n: string }>(
        `select count(*)::text as n from events where withdrawal_id = ? and kind = 'withdrawal.completed'`,
        [withdrawal.id],
      );
      expect(events).toBe('1');
    } finally {
      await resumeMining('POLYGON');
    }
  });
});
