// The local chains `npm start` and the e2e tests run: real anvil processes with the real chain
// ids, our StableToken deployed as USDC and USDT, and a funded hot wallet. No mocks.
import { createWalletClient, http, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { STABLE_TOKEN_ABI } from '../../src/adapters/chain/stable-token';
import { CHAINS, STABLECOINS } from '../../src/domain/chains';
import {
  HOT_WALLET_MIN_BALANCE,
  LOCAL_HOT_WALLET_PRIVATE_KEY,
  localViemChain,
} from '../../src/embedded/local-chains';
import { startTestChains, type TestChains } from '../support/chains';

const hotWallet = privateKeyToAccount(LOCAL_HOT_WALLET_PRIVATE_KEY);
const recipient: Address = '0x000000000000000000000000000000000000bEEF';

let chains: TestChains;

beforeAll(async () => {
  chains = await startTestChains();
});

afterAll(async () => {
  await chains?.stop();
});

describe('local chains', () => {
  it('answer with the real chain ids and hand child processes a complete env', async () => {
    const ids = await Promise.all(CHAINS.map((name) => chains.publicClient(name).getChainId()));
    expect(ids).toEqual([8453, 1, 137]);
    expect(Object.keys(chains.env).sort()).toEqual(
      [
        'HOT_WALLET_PRIVATE_KEY',
        ...CHAINS.flatMap((c) => [
          `${c}_RPC_URL`,
          `${c}_USDC_ADDRESS`,
          `${c}_USDT_ADDRESS`,
          `${c}_CONFIRMATIONS`,
        ]),
      ].sort(),
    );
    // Nothing reorganises a local chain: one block is final there (issue 35).
    expect(chains.env.ETHEREUM_CONFIRMATIONS).toBe('1');
    expect(chains.env.BASE_RPC_URL).toBe(chains.chain('BASE').rpcUrl);
    expect(chains.env.POLYGON_USDT_ADDRESS).toBe(chains.chain('POLYGON').tokens.USDT);
    expect(chains.env.HOT_WALLET_PRIVATE_KEY).toBe(LOCAL_HOT_WALLET_PRIVATE_KEY);
  });

  it('have USDC and USDT with 6 decimals and a funded hot wallet', async () => {
    for (const name of CHAINS) {
      const client = chains.publicClient(name);
      for (const asset of STABLECOINS) {
        const address = chains.chain(name).tokens[asset];
        const read = (functionName: 'decimals' | 'symbol') =>
          client.readContract({ address, abi: STABLE_TOKEN_ABI, functionName });
        expect(await read('decimals')).toBe(6);
        expect(await read('symbol')).toBe(asset);
        const balance = await chains.tokenBalance(name, asset, hotWallet.address);
        expect(balance).toBeGreaterThanOrEqual(HOT_WALLET_MIN_BALANCE);
      }
    }
    // The hot wallet has sent nothing: its nonces belong to payouts.
    expect(
      await chains.publicClient('BASE').getTransactionCount({ address: hotWallet.address }),
    ).toBe(0);
  });

  it('log a transfer signed by the hot wallet with its exact value', async () => {
    const name = 'POLYGON';
    const chain = chains.chain(name);
    const client = chains.publicClient(name);
    const wallet = createWalletClient({
      chain: localViemChain(name, chain.rpcUrl),
      transport: http(chain.rpcUrl),
      account: hotWallet,
    });
    const before = await client.getBlockNumber();
    const value = 1_234_567n; // 1.234567 USDT
    const hash = await wallet.writeContract({
      address: chain.tokens.USDT,
      abi: STABLE_TOKEN_ABI,
      functionName: 'transfer',
      args: [recipient, value],
    });
    const receipt = await client.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');

    const logs = await chains.transferLogs(name, 'USDT', before + 1n);
    expect(logs).toEqual([
      {
        txHash: hash,
        blockNumber: receipt.blockNumber,
        from: hotWallet.address,
        to: recipient,
        value,
      },
    ]);
    expect(await chains.tokenBalance(name, 'USDT', recipient)).toBe(value);
    expect(await chains.tokenBalance(name, 'USDC', recipient)).toBe(0n);
  });

  it('keep contracts, balances and history across a stop and restart', async () => {
    const name = 'BASE';
    const chain = chains.chain(name);
    const client = chains.publicClient(name);
    const wallet = createWalletClient({
      chain: localViemChain(name, chain.rpcUrl),
      transport: http(chain.rpcUrl),
      account: hotWallet,
    });
    const hash = await wallet.writeContract({
      address: chain.tokens.USDC,
      abi: STABLE_TOKEN_ABI,
      functionName: 'transfer',
      args: [recipient, 42n],
    });
    await client.waitForTransactionReceipt({ hash });
    const hotBalance = await chains.tokenBalance(name, 'USDC', hotWallet.address);
    const head = await client.getBlockNumber();

    await chains.stopChain(name);
    await expect(client.getChainId()).rejects.toThrow();

    const restarted = await chains.restartChain(name);
    expect(restarted.rpcUrl).toBe(chain.rpcUrl);
    expect(restarted.tokens).toEqual(chain.tokens);
    expect(await client.getBlockNumber()).toBeGreaterThanOrEqual(head);
    expect(await chains.tokenBalance(name, 'USDC', recipient)).toBe(42n);
    expect(await chains.tokenBalance(name, 'USDC', hotWallet.address)).toBe(hotBalance);
    expect(await client.getTransactionCount({ address: hotWallet.address })).toBe(1);
    // Receipts and logs of before the stop are still served (payout confirmation relies on it).
    expect((await client.getTransactionReceipt({ hash })).status).toBe('success');
    expect((await chains.transferLogs(name, 'USDC')).map((log) => log.txHash)).toContain(hash);
  });
});
