// Real local chains for integration and e2e tests: one anvil per chain on free ports, with USDC,
// USDT and a funded hot wallet (src/embedded/local-chains.ts). State lives in a temporary
// directory, so a test can stop a chain (an outage) and restart it with its history intact.
import { freePort } from './free-port';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, http, type Address, type Hex } from 'viem';
import { STABLE_TOKEN_ABI } from '../../src/adapters/chain/stable-token';
import { CHAINS, type Chain, type Stablecoin } from '../../src/domain/chains';
import { startAnvil } from '../../src/embedded/anvil';
import {
  localChainStateFile,
  localViemChain,
  prepareLocalChain,
  startLocalChains,
  type LocalChain,
} from '../../src/embedded/local-chains';

export type { LocalChain } from '../../src/embedded/local-chains';

export interface TransferLog {
  txHash: Hex;
  blockNumber: bigint;
  from: Address;
  to: Address;
  value: bigint;
}

function makePublicClient(chain: LocalChain) {
  return createPublicClient({
    chain: localViemChain(chain.chain, chain.rpcUrl),
    transport: http(chain.rpcUrl),
    pollingInterval: 100,
  });
}
export type LocalPublicClient = ReturnType<typeof makePublicClient>;

export interface TestChains {
  /** BASE_RPC_URL, BASE_USDC_ADDRESS, ... and HOT_WALLET_PRIVATE_KEY for the processes under test. */
  env: Record<string, string>;
  /** The chains as currently running (a restarted chain replaces its entry). */
  readonly chains: LocalChain[];
  chain(name: Chain): LocalChain;
  /** Stops the chain's anvil (its state is saved); its RPC URL stops answering. */
  stopChain(name: Chain): Promise<void>;
  /** Starts the chain again on the same port from its saved state. */
  restartChain(name: Chain): Promise<LocalChain>;
  publicClient(name: Chain): LocalPublicClient;
  tokenBalance(name: Chain, asset: Stablecoin, address: Address): Promise<bigint>;
  transferLogs(name: Chain, asset: Stablecoin, fromBlock?: bigint): Promise<TransferLog[]>;
  stop(): Promise<void>;
}

export async function startTestChains(
  options: { blockTimeSeconds?: number } = {},
): Promise<TestChains> {
  const blockTimeSeconds = options.blockTimeSeconds ?? 1;
  const stateDir = mkdtempSync(join(tmpdir(), 'onramp-test-chains-'));
  const ports: Record<Chain, number> = { BASE: 0, ETHEREUM: 0, POLYGON: 0 };
  for (const chain of CHAINS) ports[chain] = await freePort();

  let started;
  try {
    started = await startLocalChains({ ports, blockTimeSeconds, stateDir });
  } catch (error) {
    // startLocalChains has stopped whatever did start.
    rmSync(stateDir, { recursive: true, force: true });
    throw error;
  }
  const running = new Map<Chain, LocalChain>(started.chains.map((c) => [c.chain, c]));
  const stopped = new Map<Chain, LocalChain>();
  const clients = new Map<Chain, LocalPublicClient>();

  const chain = (name: Chain): LocalChain => {
    const found = running.get(name) ?? stopped.get(name);
    if (!found) throw new Error(`no test chain ${name}`);
    return found;
  };
  const publicClient = (name: Chain): LocalPublicClient => {
    let client = clients.get(name);
    if (!client) {
      client = makePublicClient(chain(name));
      clients.set(name, client);
    }
    return client;
  };

  return {
    env: started.env,
    get chains() {
      return CHAINS.map(chain);
    },
    chain,
    publicClient,
    async stopChain(name) {
      const current = running.get(name);
      if (!current) return;
      await current.stop();
      running.delete(name);
      stopped.set(name, current);
    },
    async restartChain(name) {
      const previous = stopped.get(name);
      if (!previous) throw new Error(`test chain ${name} is not stopped`);
      const anvil = await startAnvil({
        chain: name,
        port: previous.port,
        blockTimeSeconds,
        stateFile: localChainStateFile(stateDir, name),
      });
      let restarted: LocalChain;
      try {
        restarted = await prepareLocalChain(anvil);
      } catch (error) {
        await anvil.stop();
        throw error;
      }
      stopped.delete(name);
      running.set(name, restarted);
      return restarted;
    },
    tokenBalance(name, asset, address) {
      return publicClient(name).readContract({
        address: chain(name).tokens[asset],
        abi: STABLE_TOKEN_ABI,
        functionName: 'balanceOf',
        args: [address],
      });
    },
    async transferLogs(name, asset, fromBlock = 0n) {
      const logs = await publicClient(name).getContractEvents({
        address: chain(name).tokens[asset],
        abi: STABLE_TOKEN_ABI,
        eventName: 'Transfer',
        fromBlock,
        toBlock: 'latest',
      });
      return logs.map((log) => ({
        txHash: log.transactionHash,
        blockNumber: log.blockNumber,
        from: log.args.from!,
        to: log.args.to!,
        value: log.args.value!,
      }));
    },
    async stop() {
      await Promise.all([...running.values()].map((c) => c.stop()));
      running.clear();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

export { freePort };
