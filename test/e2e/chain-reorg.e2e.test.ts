import type { Address, Hex } from 'viem';
import { toBaseUnits } from '../../src/domain/payout-rules';
import { startTestChains, type TestChains } from '../support/chains';
import { createTestDatabase } from '../support/db';
import { request } from '../support/http';
import { autoWithdrawOnramp, freshRate, randomAddress, sandboxTransfer } from '../support/onramps';
import { eventKinds, sql } from '../support/sql';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';

/**
 * A reorg through the processes (issue 35): a deposit SETTLED from a block that anvil_reorg
 * then replaces. The runner's block follower must notice, send the same transaction again, and
 * see it mined in the new chain; the chain is the judge (the destination holds the amount
 * once), the deposit is settled once (one event), and the ledger check after the file is green.
 */
describe('a chain reorganised under a settled deposit', () => {
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
    key = (await createMerchant(databaseUrl, 'Reorg Co')).api_key;
  });
  afterAll(async () => {
    await stack?.stop();
    await chains?.stop();
  });

  it('sends the transaction again after anvil_reorg drops its block; the deposit stays settled once', async () => {
    const rate = await freshRate(stack.url, key, 'USDC');
    const destination = randomAddress();
    const created = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      body: autoWithdrawOnramp(rate.rate_id, {
        chain: 'BASE',
        asset: 'USDC',
        destination_address: destination,
      }),
    });
    expect(created.status).toBe(201);
    const deposit = await sandboxTransfer(
      stack.url,
      key,
      created.body.virtual_account.account_number,
      '15000',
    );
    const done = await eventually(async () => {
      const d = (await request(stack.url, 'GET', `/v1/deposits/${deposit.deposit_id}`, { key }))
        .body;
      return d.status === 'SETTLED' ? d : undefined;
    }, 30_000);
    const client = chains.publicClient('BASE');
    const hash = done.tx_hash as Hex;
    const first = await client.getTransactionReceipt({ hash });

    // Replace every block from the payout's up (and two more, for blocks mined meanwhile).
    const head = await client.getBlockNumber();
    await client.request({
      method: 'anvil_reorg' as never,
      params: [Number(head - first.blockNumber + 3n), []] as never,
    });
    await expect(client.getTransactionReceipt({ hash })).rejects.toThrow();

    const again = await eventually(async () => {
      const receipt = await client.getTransactionReceipt({ hash }).catch(() => undefined);
      return receipt && receipt.blockHash !== first.blockHash ? receipt : undefined;
    }, 30_000);
    expect(again.status).toBe('success');
    const [row] = await eventually(async () => {
      const rows = await sql<{ status: string; block_hash: string; reorged_at: Date | null }>(
        databaseUrl,
        'select status, block_hash, reorged_at from payouts where deposit_id = $1',
        [deposit.deposit_id],
      );
      return rows[0]?.status === 'CONFIRMED' && rows[0].block_hash === again.blockHash
        ? rows
        : undefined;
    }, 30_000);
    expect(row.reorged_at).not.toBeNull();
    // Paid once on the chain, settled once in the service.
    expect(await chains.tokenBalance('BASE', 'USDC', destination as Address)).toBe(
      toBaseUnits(done.amount_asset),
    );
    const after = (await request(stack.url, 'GET', `/v1/deposits/${deposit.deposit_id}`, { key }))
      .body;
    expect(after).toMatchObject({ status: 'SETTLED', tx_hash: hash });
    expect(await eventKinds(databaseUrl, deposit.deposit_id)).toEqual([
      'deposit.created',
      'deposit.pending_withdrawal',
      'deposit.settled',
    ]);
  });
});
