import { decodeEventLog, erc20Abi, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Chain } from '../../src/domain/assets';
import { toBaseUnits } from '../../src/domain/payout-rules';
import { LOCAL_HOT_WALLET_PRIVATE_KEY } from '../../src/embedded/local-chains';
import { startTestChains, type TestChains } from '../support/chains';
import { createTestDatabase } from '../support/db';
import { request } from '../support/http';
import { autoWithdrawOnramp, freshRate, randomAddress, sandboxTransfer } from '../support/onramps';
import { eventKinds, sql } from '../support/sql';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';

const HOT_WALLET = privateKeyToAccount(LOCAL_HOT_WALLET_PRIVATE_KEY).address;

/**
 * AUTO_WITHDRAW end to end: REST in, real ERC-20 transfers out on three local chains, and a
 * chain whose node is stopped holds its payouts (nothing broadcast) until it is back.
 */
describe('on-chain settlement through the processes', () => {
  let chains: TestChains;
  let stack: Stack;
  let databaseUrl: string;
  let key: string;

  beforeAll(async () => {
    chains = await startTestChains();
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: { ...chains.env, RATE_LIMIT_PER_MINUTE: '100000', PAYOUT_POLL_MS: '300' },
    });
    key = (await createMerchant(databaseUrl, 'Chain Co')).api_key;
  });
  afterAll(async () => {
    await stack?.stop();
    await chains?.stop();
  });

  async function autoWithdrawDeposit(chain: Chain, asset: 'USDC' | 'USDT', amountNgn: string) {
    const rate = await freshRate(stack.url, key, asset);
    const destination = randomAddress();
    const created = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      body: autoWithdrawOnramp(rate.rate_id, { chain, asset, destination_address: destination }),
    });
    expect(created.status).toBe(201);
    const deposit = await sandboxTransfer(
      stack.url,
      key,
      created.body.virtual_account.account_number,
      amountNgn,
    );
    return { deposit, destination };
  }

  const depositNow = async (id: string) =>
    (await request(stack.url, 'GET', `/v1/deposits/${id}`, { key })).body;

  const settled = (id: string, timeoutMs = 20_000) =>
    eventually(async () => {
      const deposit = await depositNow(id);
      return deposit.status === 'SETTLED' ? deposit : undefined;
    }, timeoutMs);

  it.each([
    ['BASE', 'USDC'],
    ['ETHEREUM', 'USDT'],
    ['POLYGON', 'USDC'],
  ] as const)(
    'a deposit on %s (%s) ends SETTLED with a tx_hash whose receipt transfers exactly amount_asset',
    async (chain, asset) => {
      const { deposit, destination } = await autoWithdrawDeposit(chain, asset, '15000');
      expect(deposit.status).toBe('PENDING_FX');
      const done = await settled(deposit.deposit_id);
      expect(done).toMatchObject({
        chain,
        asset,
        status: 'SETTLED',
        settled_at: expect.any(String),
      });

      const receipt = await chains
        .publicClient(chain)
        .getTransactionReceipt({ hash: done.tx_hash as Hex });
      expect(receipt.status).toBe('success');
      const transfers = receipt.logs.map((log) => ({
        token: log.address.toLowerCase(),
        ...decodeEventLog({ abi: erc20Abi, data: log.data, topics: log.topics }).args,
      }));
      expect(transfers).toEqual([
        {
          token: chains.chain(chain).tokens[asset].toLowerCase(),
          from: HOT_WALLET,
          to: destination,
          value: toBaseUnits(done.amount_asset),
        },
      ]);
      expect(await chains.tokenBalance(chain, asset, destination as Address)).toBe(
        toBaseUnits(done.amount_asset),
      );
      expect(await eventKinds(databaseUrl, deposit.deposit_id)).toEqual([
        'deposit.created',
        'deposit.pending_withdrawal',
        'deposit.settled',
      ]);
    },
  );

  it('a stopped node holds its deposits in PENDING_WITHDRAWAL with nothing broadcast; restarted, they settle', async () => {
    await chains.stopChain('POLYGON');
    const held = [];
    for (let i = 0; i < 3; i += 1)
      held.push(await autoWithdrawDeposit('POLYGON', 'USDC', `${16000 + i}`));
    for (const { deposit } of held) {
      await eventually(async () =>
        (await depositNow(deposit.deposit_id)).status === 'PENDING_WITHDRAWAL' ? true : undefined,
      );
    }
    // Several sweeps go by while the node is down.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const ids = held.map(({ deposit }) => deposit.deposit_id);
    const payouts = await sql<{ status: string; nonce: string | null; signed: number }>(
      databaseUrl,
      `select po.status, po.nonce,
              (select count(*)::int from payout_transactions t where t.payout_id = po.id) as signed
         from payouts po where po.deposit_id = any($1)`,
      [ids],
    );
    expect(payouts).toEqual(ids.map(() => ({ status: 'PENDING', nonce: null, signed: 0 })));
    for (const id of ids) expect((await depositNow(id)).status).toBe('PENDING_WITHDRAWAL');
    const [status] = await sql<{ healthy: boolean }>(
      databaseUrl,
      "select healthy from chain_status where chain = 'POLYGON'",
    );
    expect(status.healthy).toBe(false);

    await chains.restartChain('POLYGON');
    for (const { deposit, destination } of held) {
      const done = await settled(deposit.deposit_id, 30_000);
      // Each destination is fresh: the whole chain's history has exactly one transfer to it.
      const logs = (await chains.transferLogs('POLYGON', 'USDC')).filter(
        (log) => log.to === destination,
      );
      expect(logs).toEqual([
        expect.objectContaining({ txHash: done.tx_hash, value: toBaseUnits(done.amount_asset) }),
      ]);
    }
  });
});
