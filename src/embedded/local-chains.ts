import { join } from 'node:path';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  getContractAddress,
  http,
  type Address,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { STABLE_TOKEN_ABI, STABLE_TOKEN_BYTECODE } from '../adapters/chain/stable-token';
import { CHAIN_IDS, CHAINS, type Chain, type Stablecoin } from '../domain/chains';
import { startAnvil, type AnvilProcess } from './anvil';

/**
 * anvil's dev account #0 (from the public "test test ... junk" mnemonic): every copy of anvil,
 * Hardhat and Foundry knows this key, so it must only ever hold funds on local chains.
 */
export const LOCAL_HOT_WALLET_PRIVATE_KEY: Hex =
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
/**
 * anvil's dev account #1 (equally public) deploys and mints, so that the hot wallet's nonces
 * are used by payouts alone and its first payout on a fresh chain has nonce 0.
 */
export const LOCAL_DEPLOYER_PRIVATE_KEY: Hex =
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

/** Deployed in this order by the deployer, so nonce 0 is USDC and nonce 1 is USDT on every chain. */
const TOKENS: ReadonlyArray<{ asset: Stablecoin; name: string; nonce: number }> = [
  { asset: 'USDC', name: 'USD Coin', nonce: 0 },
  { asset: 'USDT', name: 'Tether USD', nonce: 1 },
];

/** Below 1,000,000,000 tokens the hot wallet is topped up by 1,000,000,000,000 (6 decimals). */
export const HOT_WALLET_MIN_BALANCE = 1_000_000_000n * 1_000_000n;
export const HOT_WALLET_MINT_AMOUNT = 1_000_000_000_000n * 1_000_000n;
/** Explicit, because a mint sent in the block that deploys its token cannot be estimated. */
const MINT_GAS = 150_000n;

export type LocalChain = AnvilProcess & { tokens: { USDC: Address; USDT: Address } };

export interface LocalChains {
  chains: LocalChain[];
  /** RPC URLs and token addresses of every chain plus HOT_WALLET_PRIVATE_KEY, for child processes. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export interface LocalChainsOptions {
  /** BASE, ETHEREUM and POLYGON listen on basePort, basePort + 1 and basePort + 2. */
  basePort?: number;
  /** Overrides basePort per chain (tests pick free ports). */
  ports?: Partial<Record<Chain, number>>;
  blockTimeSeconds: number;
  /** Keeps `<chain>.json` state files here; without it every start is a fresh chain. */
  stateDir?: string;
  /** anvil logs go to `anvil-<chain>.log` here; discarded when unset. */
  logDir?: string;
  chains?: readonly Chain[];
}

/** Token contract addresses are a function of the deployer and its nonce only. */
export const LOCAL_TOKEN_ADDRESSES: { USDC: Address; USDT: Address } = (() => {
  const from = privateKeyToAccount(LOCAL_DEPLOYER_PRIVATE_KEY).address;
  const [usdc, usdt] = TOKENS.map((token) =>
    getContractAddress({ from, nonce: BigInt(token.nonce) }),
  );
  return { USDC: usdc, USDT: usdt };
})();

/** A viem chain with the real chain id whose only RPC endpoint is the local node. */
export function localViemChain(chain: Chain, rpcUrl: string) {
  return defineChain({
    id: CHAIN_IDS[chain],
    name: `${chain} (local)`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

export function localChainStateFile(stateDir: string, chain: Chain): string {
  return join(stateDir, `${chain.toLowerCase()}.json`);
}

/**
 * Makes a running anvil a usable local chain: deploys USDC and USDT unless its state already
 * has them, and tops up the hot wallet. Idempotent, so a restart with a state file only reads.
 */
export async function prepareLocalChain(anvil: AnvilProcess): Promise<LocalChain> {
  const viemChain = localViemChain(anvil.chain, anvil.rpcUrl);
  const transport = http(anvil.rpcUrl);
  const publicClient = createPublicClient({ chain: viemChain, transport, pollingInterval: 100 });
  const deployer = privateKeyToAccount(LOCAL_DEPLOYER_PRIVATE_KEY);
  const wallet = createWalletClient({ chain: viemChain, transport, account: deployer });
  const hotWallet = privateKeyToAccount(LOCAL_HOT_WALLET_PRIVATE_KEY).address;
  const tokens = LOCAL_TOKEN_ADDRESSES;

  let nonce = await publicClient.getTransactionCount({
    address: deployer.address,
    blockTag: 'pending',
  });
  const sent: Hex[] = [];
  const deployed = new Set<Stablecoin>();
  // Both deployments first, so USDC and USDT always get the deployer's nonces 0 and 1.
  for (const token of TOKENS) {
    const address = tokens[token.asset];
    const code = await publicClient.getCode({ address });
    if (code && code !== '0x') continue;
    if (nonce !== token.nonce) {
      throw new Error(
        `${anvil.chain}: no ${token.asset} contract at ${address}, but the deployer has used ` +
          `nonce ${token.nonce} already; delete this chain's state file to start it afresh`,
      );
    }
    sent.push(
      await wallet.deployContract({
        abi: STABLE_TOKEN_ABI,
        bytecode: STABLE_TOKEN_BYTECODE,
        args: [token.name, token.asset],
        nonce: nonce++,
      }),
    );
    deployed.add(token.asset);
  }
  for (const token of TOKENS) {
    const address = tokens[token.asset];
    const balance = deployed.has(token.asset)
      ? 0n
      : await publicClient.readContract({
          address,
          abi: STABLE_TOKEN_ABI,
          functionName: 'balanceOf',
          args: [hotWallet],
        });
    if (balance >= HOT_WALLET_MIN_BALANCE) continue;
    // Same sender, later nonce: mined after the deployment even when both share a block.
    sent.push(
      await wallet.writeContract({
        address,
        abi: STABLE_TOKEN_ABI,
        functionName: 'mint',
        args: [hotWallet, HOT_WALLET_MINT_AMOUNT],
        nonce: nonce++,
        gas: MINT_GAS,
      }),
    );
  }
  for (const hash of sent) {
    const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: 120_000 });
    if (receipt.status !== 'success') {
      throw new Error(`${anvil.chain}: set-up transaction ${hash} reverted`);
    }
  }
  return { ...anvil, tokens: { ...tokens } };
}

export function localChainsEnv(chains: readonly LocalChain[]): Record<string, string> {
  const env: Record<string, string> = { HOT_WALLET_PRIVATE_KEY: LOCAL_HOT_WALLET_PRIVATE_KEY };
  for (const chain of chains) {
    env[`${chain.chain}_RPC_URL`] = chain.rpcUrl;
    // Nothing reorganises a local chain unless a test does it on purpose: one block is final
    // (the real networks' defaults wait minutes; src/config-chains.ts).
    env[`${chain.chain}_CONFIRMATIONS`] = '1';
    env[`${chain.chain}_USDC_ADDRESS`] = chain.tokens.USDC;
    env[`${chain.chain}_USDT_ADDRESS`] = chain.tokens.USDT;
  }
  return env;
}

/** Starts and prepares one anvil; stops it again if preparing fails. */
async function startLocalChain(options: LocalChainsOptions, chain: Chain): Promise<LocalChain> {
  const anvil = await startAnvil({
    chain,
    port: options.ports?.[chain] ?? (options.basePort ?? 8545) + CHAINS.indexOf(chain),
    blockTimeSeconds: options.blockTimeSeconds,
    stateFile: options.stateDir && localChainStateFile(options.stateDir, chain),
    logFile: options.logDir && join(options.logDir, `anvil-${chain.toLowerCase()}.log`),
  });
  try {
    return await prepareLocalChain(anvil);
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

/**
 * One anvil per chain, in parallel, each with the chain's real id, both stablecoins and a
 * funded hot wallet. If any chain fails, the others are stopped before the error is thrown.
 */
export async function startLocalChains(options: LocalChainsOptions): Promise<LocalChains> {
  const wanted = options.chains ?? CHAINS;
  const results = await Promise.allSettled(wanted.map((chain) => startLocalChain(options, chain)));
  const chains = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) {
    await Promise.all(chains.map((chain) => chain.stop()));
    throw failed.reason;
  }
  return {
    chains,
    env: localChainsEnv(chains),
    stop: async () => {
      await Promise.all(chains.map((chain) => chain.stop()));
    },
  };
}
