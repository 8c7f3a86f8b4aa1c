import type { Chain } from './assets';

export { CHAINS, type Chain } from './assets';

/**
 * EIP-155 chain ids of the chains we pay out on. Local anvil chains run with the same ids, so
 * signed transactions and chain-id checks behave exactly as they do against the real networks.
 */
export const CHAIN_IDS: Record<Chain, number> = {
  BASE: 8453,
  ETHEREUM: 1,
  POLYGON: 137,
};

/** The stablecoins a payout can send; both are 6-decimal ERC-20 tokens on every chain. */
export const STABLECOINS = ['USDC', 'USDT'] as const;
export type Stablecoin = (typeof STABLECOINS)[number];
