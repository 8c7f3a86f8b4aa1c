import type { Address, Hex } from 'viem';
import type { Chain } from '../../domain/assets';

export type Stablecoin = 'USDC' | 'USDT';

export interface MinedReceipt {
  hash: Hex;
  success: boolean;
  blockNumber: bigint;
  /** The block that holds it: a reorg that replaces the block unsettles the payout. */
  blockHash: Hex;
}

/** A block as the follower walks it: its place in the chain and its transactions. */
export interface ChainBlock {
  number: bigint;
  hash: Hex;
  parentHash: Hex;
  /** Transaction hashes, in block order. */
  transactions: Hex[];
}

export interface HotWalletBalances {
  /** The block all three balances were read at. */
  blockNumber: bigint;
  /** Native coin, in wei. */
  native: bigint;
  /** Each token's `balanceOf` the hot wallet, in base units. */
  tokens: Record<Stablecoin, bigint>;
}

export interface ChainSettings {
  chain: Chain;
  chainId: number;
  /** The chain's nodes, in order of preference (`<CHAIN>_RPC_URLS`). */
  rpcUrls: string[];
  /** A node further behind the highest head than this is not trusted. */
  maxLagBlocks?: number;
  tokens: Record<Stablecoin, Address>;
  confirmations: number;
  /**
   * The hot wallet: its key where payouts are signed (the job runner), or only its address
   * where they are not (the gateway reads balances for the treasury view, and never holds the
   * key).
   */
  wallet: { privateKey: Hex } | { address: Address };
  timeoutMs?: number;
}
