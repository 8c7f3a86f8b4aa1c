import type { MikroORM } from '@mikro-orm/postgresql';
import pino from 'pino';
import { toHex, type Hex } from 'viem';
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

// Issue 35: a gas spike (anvil_setNextBlockBaseFeePerGas, x20) keeps a signed payout from being
// mined; it waits, then is replaced at the same nonce with fees above the new base fee
// (payout-bump.ts), and settles. Never stuck: each PAYOUT_STUCK_SECONDS bumps again.
describe('payouts through a gas spike (real PostgreSQL, real anvil chains)', () => {
  let chains: TestChains;
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  const followers: PayoutBlockFollower[] = [];
  const log = pino({ level: 'silent' });

  beforeAll(async () => {
    chains = await startTestChains();
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock('2026-08-01T09:00:00Z');
    services = createServices(loadConfig({ ...chains.env }), clock);
  });
  afterAll(async () => {
    await Promise.all(followers.map((f) => f.stop()));
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

  function follow(): void {
    const follower = new PayoutBlockFollower(
      services.chains,
      (tx, mined) => services.payouts.settleMined(tx, mined),
      undefined,
      services.payoutReorgs,
    );
    follower.start({ pollMs: 100, openEm: em, log });
    followers.push(follower);
  }

  async function pendingPayout(chain: Chain) {
    const kit = depositKit(orm, services, clock);
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant, 'EPHEMERAL', undefined, {
      mode: 'AUTO_WITHDRAW',
      asset: 'USDC',
      chain,
      destinationAddress: DESTINATION,
    });
    const deposit = await kit.transfer(onramp.accountNumber, '15000');
    expect(await services.settlement.settle(em(), deposit.id)).toBe('PENDING_WITHDRAWAL');
    const [payout] = await sql<{ id: string }>('select id from payouts where deposit_id = ?', [
      deposit.id,
    ]);
    return { kit, depositId: deposit.id, payoutId: payout.id };
  }

  const settled = (kit: ReturnType<typeof depositKit>, depositId: string) =>
    eventually(
      async () => {
        const d = await kit.reload(depositId);
        return d.status === 'SETTLED' ? d : undefined;
      },
      20_000,
      100,
    );

  it('(d) a base fee twenty times higher keeps a signed payout waiting, then it is fee-bumped at the same nonce and settles', async () => {
    await pauseMining('ETHEREUM');
    try {
      const { kit, depositId, payoutId } = await pendingPayout('ETHEREUM');
      expect(await services.payouts.send(em(), payoutId)).toBe('signed');
      const [signed] = await sql<{ tx_hash: Hex; nonce: string }>(
        'select tx_hash, nonce::text from payouts where id = ?',
        [payoutId],
      );
      const latest = await chains.publicClient('ETHEREUM').getBlock();
      await rpc('ETHEREUM', 'anvil_setNextBlockBaseFeePerGas', [
        toHex(latest.baseFeePerGas! * 20n),
      ]);
      await rpc('ETHEREUM', 'evm_mine');
      // Its fee cap is below the block's base fee: not mined.
      const spiked = await chains.publicClient('ETHEREUM').getBlock();
      expect(spiked.transactions).not.toContain(signed.tx_hash);
      let report = await services.payoutSweep.sweep(em(), 'ETHEREUM');
      expect(report).toMatchObject({ confirmed: 0, bumped: 0 });

      clock.advance(services.config.PAYOUT_STUCK_SECONDS * 1000);
      report = await services.payoutSweep.sweep(em(), 'ETHEREUM');
      expect(report.bumped).toBe(1);
      const stored = await sql<{ hash: Hex; nonce: string; max_fee_per_gas: string }>(
        `select hash, nonce::text, max_fee_per_gas::text from payout_transactions
          where payout_id = ? order by created_at`,
        [payoutId],
      );
      expect(stored).toHaveLength(2);
      expect(stored[1].nonce).toBe(signed.nonce);
      expect(BigInt(stored[1].max_fee_per_gas)).toBeGreaterThan(spiked.baseFeePerGas!);

      follow();
      await rpc('ETHEREUM', 'evm_mine');
      const deposit = await settled(kit, depositId);
      expect(deposit.txHash).toBe(stored[1].hash);
    } finally {
      await resumeMining('ETHEREUM');
    }
  });
});
