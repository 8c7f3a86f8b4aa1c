import type { Address, Hex } from 'viem';
import type { Config } from '../../config';
import { CHAINS, type Chain } from '../../domain/assets';
import { CHAIN_IDS } from '../../domain/chains';
import { ViemChainGateway, type ChainGateway } from './chain-gateway';
import { chainRpcUrls } from '../../config-chains';

export interface ChainRegistry {
  /** The chain's gateway, or undefined when the deployment has not configured it. */
  get(chain: string): ChainGateway | undefined;
  configured(): ChainGateway[];
  /** Why each unconfigured chain is not usable (for the runner's start-up log). */
  missing(): Array<{ chain: Chain; why: string }>;
}

/**
 * Builds one gateway per chain that has an RPC URL, both token addresses and the hot wallet:
 * its key (`HOT_WALLET_PRIVATE_KEY`, the job runner, which signs) or else its address
 * (`HOT_WALLET_ADDRESS`, the gateway, which only reads balances). A chain left out is treated
 * as down: its payouts wait (and FLAG after the outage maximum) rather than fail.
 */
export function chainRegistryFromConfig(config: Config): ChainRegistry {
  const wallet = config.HOT_WALLET_PRIVATE_KEY
    ? { privateKey: config.HOT_WALLET_PRIVATE_KEY as Hex }
    : config.HOT_WALLET_ADDRESS
      ? { address: config.HOT_WALLET_ADDRESS as Address }
      : undefined;
  const gateways = new Map<Chain, ChainGateway>();
  const missing: Array<{ chain: Chain; why: string }> = [];
  for (const chain of CHAINS) {
    const rpcUrls = chainRpcUrls(config, chain);
    const usdc = config[`${chain}_USDC_ADDRESS`];
    const usdt = config[`${chain}_USDT_ADDRESS`];
    const absent = [
      rpcUrls.length === 0 && `${chain}_RPC_URL`,
      !usdc && `${chain}_USDC_ADDRESS`,
      !usdt && `${chain}_USDT_ADDRESS`,
      !wallet && 'HOT_WALLET_PRIVATE_KEY (or HOT_WALLET_ADDRESS)',
    ].filter((name): name is string => Boolean(name));
    if (absent.length > 0) {
      missing.push({ chain, why: `${absent.join(', ')} not set` });
      continue;
    }
    gateways.set(
      chain,
      new ViemChainGateway({
        chain,
        chainId: CHAIN_IDS[chain],
        rpcUrls,
        maxLagBlocks: config.RPC_MAX_LAG_BLOCKS,
        tokens: { USDC: usdc as Address, USDT: usdt as Address },
        confirmations: config[`${chain}_CONFIRMATIONS`],
        wallet: wallet!,
      }),
    );
  }
  return {
    get: (chain) => gateways.get(chain as Chain),
    configured: () => [...gateways.values()],
    missing: () => missing,
  };
}
