import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { decodeEventLog, erc20Abi, type Hex } from 'viem';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import type { Chain } from '../../src/domain/assets';
import { REASON } from '../../src/domain/deposit-reasons';
import { toBaseUnits } from '../../src/domain/payout-rules';
import { LOCAL_HOT_WALLET_PRIVATE_KEY } from '../../src/embedded/local-chains';
import { privateKeyToAccount } from 'viem/accounts';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import { startTestChains, type TestChains } from '../support/chains';
import { eventually } from '../support/stack';

const HOT_WALLET = privateKeyToAccount(LOCAL_HOT_WALLET_PRIVATE_KEY).address;
const DESTINATION = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const BLOCKED = '0x00000000000000000000000000000000DeaDBeef';

describe('on-chain payouts (real PostgreSQL, real anvil chains)', () => {
  let chains: TestChains;
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;
  let blocklistDir: string;

  beforeAll(async () => {
    chains = await startTestChains();
    blocklistDir = mkdtempSync(join(tmpdir(), 'onramp-blocklist-'));
    const blocklist = join(blocklistDir, 'blocklist.txt');
    writeFileSync(blocklist, `# test list\n${BLOCKED}\n`);
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock('2026-08-01T09:00:00Z');
    services = createServices(loadConfig({ ...chains.env, RISK_BLOCKLIST_FILE: blocklist }), clock);
    kit = depositKit(orm, services, clock);
  });
  afterAll(async () => {
    await orm?.close();
    await chains?.stop();
    if (blocklistDir) rmSync(blocklistDir, { recursive: true, force: true });
  });

  const em = () => orm.em.fork();
  const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
    orm.em.fork().getConnection().execute<T[]>(text, params);
  const payoutOf = async (depositId: string) =>
    (
      await sql<{ id: string; status: string; nonce: string | null; tx_hash: string | null }>(
        'select id, status, nonce, tx_hash from payouts where deposit_id = ?',
        [depositId],
      )
    )[0];
  const rpc = (chain: Chain, method: string, params: unknown[] = []) =>
    // anvil's own methods are outside viem's typed JSON-RPC schema.
    (chains.publicClient(chain).request as (args: unknown) => Promise<unknown>)({
      method,
      params,
    });
  const sweepAll = () =>
    Promise.all(
      (['BASE', 'ETHEREUM', 'POLYGON'] as const).map((c) => services.payoutSweep.sweep(em(), c)),
    );

  /** A converted AUTO_WITHDRAW deposit in PENDING_WITHDRAWAL with its PENDING payout. */
  async function convertedDeposit(
    merchantId: string,
    options: { chain?: Chain; asset?: 'USDC' | 'USDT'; to?: string; ngn?: string } = {},
  ) {
    const onramp = await kit.onramp(merchantId, 'EPHEMERAL', undefined, {
      mode: 'AUTO_WITHDRAW',
      asset: options.asset ?? 'USDC',
      chain: options.chain ?? 'BASE',
      destinationAddress: options.to ?? DESTINATION,
    });
    const deposit = await kit.transfer(onramp.accountNumber, options.ngn ?? '15000');
    expect(await services.settlement.settle(em(), deposit.id)).toBe('PENDING_WITHDRAWAL');
    return kit.reload(deposit.id);
  }

  async function settledBySweeps(depositId: string) {
    return eventually(
      async () => {
        await sweepAll();
        const deposit = await kit.reload(depositId);
        return deposit.status === 'SETTLED' ? deposit : undefined;
      },
      20_000,
      200,
    );
  }

  /** The ERC-20 Transfer events a mined transaction emitted. */
  async function transfersIn(chain: Chain, hash: Hex) {
    const receipt = await chains.publicClient(chain).getTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    return receipt.logs.map((log) => ({
      token: log.address.toLowerCase(),
      ...(decodeEventLog({ abi: erc20Abi, data: log.data, topics: log.topics }).args as {
        from: string;
        to: string;
        value: bigint;
      }),
    }));
  }

  it.each([
    ['BASE', 'USDC'],
    ['ETHEREUM', 'USDT'],
    ['POLYGON', 'USDC'],
  ] as const)(
    'an AUTO_WITHDRAW deposit on %s (%s) ends SETTLED with a tx_hash whose receipt moves exactly amount_asset',
    async (chain, asset) => {
      const merchant = await kit.merchant();
      const deposit = await convertedDeposit(merchant, { chain, asset });
      const payout = await payoutOf(deposit.id);
      expect(payout.status).toBe('PENDING');
      expect(await services.payouts.send(em(), payout.id)).toBe('signed');

      const settled = await settledBySweeps(deposit.id);
      expect(settled.txHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(settled.settledAt).toEqual(clock.now());
      expect(await transfersIn(chain, settled.txHash as Hex)).toEqual([
        {
          token: chains.chain(chain).tokens[asset].toLowerCase(),
          from: HOT_WALLET,
          to: DESTINATION,
          value: toBaseUnits(settled.amountAsset!),
        },
      ]);
      expect(await kit.events(deposit.id)).toEqual([
        { kind: 'deposit.created', status: 'PENDING_FX' },
        { kind: 'deposit.pending_withdrawal', status: 'PENDING_WITHDRAWAL' },
        { kind: 'deposit.settled', status: 'SETTLED' },
      ]);
      expect((await payoutOf(deposit.id)).status).toBe('CONFIRMED');
    },
  );

  it('signs each payout once, with contiguous nonces, however many senders race', async () => {
    const merchant = await kit.merchant();
    const fromBlock = (await chains.publicClient('POLYGON').getBlockNumber()) + 1n;
    const deposits = [];
    for (let i = 0; i < 15; i += 1) {
      deposits.push(await convertedDeposit(merchant, { chain: 'POLYGON', ngn: `${15000 + i}` }));
    }
    const payouts = await Promise.all(deposits.map((d) => payoutOf(d.id)));
    const outcomes = await Promise.all(
      payouts.flatMap((p) => [
        services.payouts.send(em(), p.id),
        services.payouts.send(em(), p.id),
        services.payouts.send(em(), p.id),
      ]),
    );
    expect(outcomes.filter((o) => o === 'signed')).toHaveLength(15);
    const nonces = (await Promise.all(deposits.map((d) => payoutOf(d.id))))
      .map((p) => Number(p.nonce))
      .sort((a, b) => a - b);
    expect(new Set(nonces).size).toBe(15);
    expect(nonces[14] - nonces[0]).toBe(14);

    for (const deposit of deposits) await settledBySweeps(deposit.id);
    const logs = (await chains.transferLogs('POLYGON', 'USDC', fromBlock)).filter(
      (log) => log.from === HOT_WALLET && log.to === DESTINATION,
    );
    expect(logs).toHaveLength(15);
    const settled = await Promise.all(deposits.map((d) => kit.reload(d.id)));
    const sent = logs.reduce((sum, log) => sum + log.value, 0n);
    expect(sent).toBe(settled.reduce((sum, d) => sum + toBaseUnits(d.amountAsset!), 0n));
  });

  describe('with mining paused', () => {
    beforeEach(() =>
      Promise.all([
        rpc('BASE', 'evm_setIntervalMining', [0]),
        rpc('BASE', 'evm_setAutomine', [false]),
      ]),
    );
    afterEach(() => rpc('BASE', 'evm_setIntervalMining', [1]));

    it('replaces a stuck transaction at the same nonce with higher fees; only one is mined', async () => {
      const merchant = await kit.merchant();
      const deposit = await convertedDeposit(merchant);
      const payout = await payoutOf(deposit.id);
      expect(await services.payouts.send(em(), payout.id)).toBe('signed');
      const first = (await payoutOf(deposit.id)).tx_hash as Hex;

      clock.advance(services.config.PAYOUT_STUCK_SECONDS * 1000);
      const [report] = await sweepAll();
      expect(report.bumped).toBe(1);
      const stored = await sql<{ hash: string; nonce: string; max_fee_per_gas: string }>(
        'select hash, nonce, max_fee_per_gas::text from payout_transactions where payout_id = ? order by created_at',
        [payout.id],
      );
      expect(stored).toHaveLength(2);
      expect(stored[0].nonce).toBe(stored[1].nonce);
      expect(BigInt(stored[1].max_fee_per_gas)).toBeGreaterThan(BigInt(stored[0].max_fee_per_gas));

      await rpc('BASE', 'evm_mine');
      const settled = await settledBySweeps(deposit.id);
      expect(settled.txHash).toBe(stored[1].hash);
      await expect(
        chains.publicClient('BASE').getTransactionReceipt({ hash: first }),
      ).rejects.toThrow();
    });

    it('resends the stored bytes when the node has lost them', async () => {
      const merchant = await kit.merchant();
      const deposit = await convertedDeposit(merchant);
      const payout = await payoutOf(deposit.id);
      expect(await services.payouts.send(em(), payout.id)).toBe('signed');
      const hash = (await payoutOf(deposit.id)).tx_hash;
      await rpc('BASE', 'anvil_dropAllTransactions');

      clock.advance(10_000);
      const [report] = await sweepAll();
      expect(report.rebroadcast).toBe(1);
      await rpc('BASE', 'evm_mine');
      const settled = await settledBySweeps(deposit.id);
      expect(settled.txHash).toBe(hash);
    });
  });

  it('risk review FLAGs a deposit paying a blocklisted address, signs nothing, stores its decision', async () => {
    const merchant = await kit.merchant();
    const deposit = await convertedDeposit(merchant, { to: BLOCKED });
    const payout = await payoutOf(deposit.id);
    expect(await services.payouts.send(em(), payout.id)).toBe('rejected');
    const flagged = await kit.reload(deposit.id);
    expect(flagged).toMatchObject({ status: 'FLAGGED', flagReason: REASON.riskRejected });
    expect(await payoutOf(deposit.id)).toMatchObject({ status: 'CANCELLED', nonce: null });
    const decisions = await sql<{
      approved: boolean;
      rules: Array<{ rule: string; passed: boolean }>;
    }>('select approved, rules from risk_decisions where payout_id = ?', [payout.id]);
    expect(decisions).toHaveLength(1);
    expect(decisions[0].approved).toBe(false);
    expect(decisions[0].rules).toContainEqual(
      expect.objectContaining({ rule: 'destination_not_blocklisted', passed: false }),
    );
  });

  it('a sandbox chain outage holds payouts unsigned, resumes when cleared, and FLAGs past the maximum', async () => {
    const merchant = await kit.merchant();
    await services.sandbox.set(em(), merchant, { chainOutage: ['ETH'] });
    const held = await convertedDeposit(merchant, { chain: 'ETHEREUM' });
    const late = await convertedDeposit(merchant, { chain: 'ETHEREUM' });
    expect(await services.payouts.send(em(), (await payoutOf(held.id)).id)).toBe('waiting');
    expect(await payoutOf(held.id)).toMatchObject({ status: 'PENDING', nonce: null });

    await services.sandbox.set(em(), merchant, { chainOutage: [] });
    expect(await services.payouts.send(em(), (await payoutOf(held.id)).id)).toBe('signed');
    await settledBySweeps(held.id);

    await services.sandbox.set(em(), merchant, { chainOutage: ['ETHEREUM'] });
    clock.advance(services.config.CHAIN_OUTAGE_MAX_SECONDS * 1000);
    expect(await services.payouts.send(em(), (await payoutOf(late.id)).id)).toBe('cancelled');
    expect(await kit.reload(late.id)).toMatchObject({
      status: 'FLAGGED',
      flagReason: REASON.chainOutage,
    });
    await services.sandbox.set(em(), merchant, { chainOutage: [] });
  });

  it('a bank reversal during PENDING_WITHDRAWAL cancels the unsigned payout', async () => {
    const merchant = await kit.merchant();
    const deposit = await convertedDeposit(merchant);
    const outcome = await services.reversals.reverse(em(), deposit.bankReference);
    expect(outcome.deposit).toMatchObject({
      status: 'FLAGGED',
      flagReason: REASON.bankReversalDuringSettlement,
    });
    expect(await payoutOf(deposit.id)).toMatchObject({ status: 'CANCELLED', nonce: null });
    expect(await services.payouts.send(em(), (await payoutOf(deposit.id)).id)).toBe('skipped');
  });

  describe('merchant withdrawals', () => {
    async function fundedMerchant(): Promise<string> {
      const merchant = await kit.merchant();
      const onramp = await kit.onramp(merchant);
      const deposit = await kit.transfer(onramp.accountNumber, '150000');
      expect(await services.settlement.settle(em(), deposit.id)).toBe('SETTLED');
      return merchant;
    }
    const withdraw = (merchant: string, amount: string, to = DESTINATION) =>
      services.withdrawals.request(em(), merchant, {
        amount,
        asset: 'USDT',
        chain: 'BASE',
        destination_address: to,
      });
    const withdrawalEvents = (id: string) =>
      sql<{ kind: string }>('select kind from events where withdrawal_id = ? order by seq', [id]);

    it('sends exactly the amount and completes: pending balance back to zero, withdrawal.completed', async () => {
      const merchant = await fundedMerchant();
      const before = await services.ledger.balance(em(), merchant, new Date(0));
      const withdrawal = await withdraw(merchant, '25.5');
      const [payout] = await sql<{ id: string }>('select id from payouts where withdrawal_id = ?', [
        withdrawal.id,
      ]);
      expect(await services.payouts.send(em(), payout.id)).toBe('signed');
      const broadcast = await services.withdrawals.get(em(), merchant, withdrawal.id);
      expect(broadcast).toMatchObject({
        status: 'BROADCAST',
        txHash: expect.stringMatching(/^0x/),
      });

      const done = await eventually(
        async () => {
          await sweepAll();
          const current = await services.withdrawals.get(em(), merchant, withdrawal.id);
          return current.status === 'COMPLETED' ? current : undefined;
        },
        20_000,
        200,
      );
      expect(await transfersIn('BASE', done.txHash as Hex)).toEqual([
        expect.objectContaining({ to: DESTINATION, value: 25_500_000n }),
      ]);
      const after = await services.ledger.balance(em(), merchant, new Date(0));
      expect(after.usdPendingWithdrawal).toBe('0.000000');
      expect(Number(before.usdAvailable) - Number(after.usdAvailable)).toBeCloseTo(25.5, 6);
      expect(await withdrawalEvents(withdrawal.id)).toEqual([{ kind: 'withdrawal.completed' }]);
    });

    it('a withdrawal rejected by risk review FAILS and its amount returns to available', async () => {
      const merchant = await fundedMerchant();
      const before = await services.ledger.balance(em(), merchant, new Date(0));
      const withdrawal = await withdraw(merchant, '10', BLOCKED);
      const [payout] = await sql<{ id: string }>('select id from payouts where withdrawal_id = ?', [
        withdrawal.id,
      ]);
      expect(await services.payouts.send(em(), payout.id)).toBe('rejected');
      expect(await services.withdrawals.get(em(), merchant, withdrawal.id)).toMatchObject({
        status: 'FAILED',
        txHash: null,
      });
      expect(await services.ledger.balance(em(), merchant, new Date(0))).toMatchObject({
        usdAvailable: before.usdAvailable,
        usdPendingWithdrawal: '0.000000',
      });
      expect(await withdrawalEvents(withdrawal.id)).toEqual([{ kind: 'withdrawal.failed' }]);
    });
  });
});
