// What the chain itself says happened, read with viem from the local nodes: the hot wallet's
// mined transactions and nonces, and each transaction's receipt and token transfers. Tests
// compare these with what the service reports, never with its database.
import { decodeEventLog, type Address, type Hex } from 'viem';
import { STABLE_TOKEN_ABI } from '../../src/adapters/chain/stable-token';
import type { Chain } from '../../src/domain/chains';
import type { TestChains } from './chains';

export interface MinedTransaction {
  hash: Hex;
  nonce: number;
  blockNumber: bigint;
}

export interface WalletNonces {
  /** Every transaction the wallet has had mined, oldest first. */
  mined: MinedTransaction[];
  /** eth_getTransactionCount at the latest block and with the mempool counted in. */
  latestCount: number;
  pendingCount: number;
}

export interface ReceiptTransfer {
  token: Address;
  from: Address;
  to: Address;
  value: bigint;
}

export interface TransferReceipt {
  status: 'success' | 'reverted';
  from: Address;
  transfers: ReceiptTransfer[];
}

const SCAN_CONCURRENCY = 25;

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * The wallet's mined transactions, read block by block from genesis (a node has no index by
 * sender), with its transaction counts. Counts are read first: a block mined during the scan
 * can only add transactions, which the test's comparisons then show.
 */
export async function walletNonces(
  chains: TestChains,
  chain: Chain,
  wallet: Address,
): Promise<WalletNonces> {
  const client = chains.publicClient(chain);
  const latestCount = await client.getTransactionCount({ address: wallet, blockTag: 'latest' });
  const pendingCount = await client.getTransactionCount({ address: wallet, blockTag: 'pending' });
  const head = await client.getBlockNumber();
  const mined: MinedTransaction[] = [];
  for (let start = 0n; start <= head; start += BigInt(SCAN_CONCURRENCY)) {
    const numbers: bigint[] = [];
    for (let n = start; n <= head && n < start + BigInt(SCAN_CONCURRENCY); n += 1n) numbers.push(n);
    const blocks = await Promise.all(
      numbers.map((blockNumber) => client.getBlock({ blockNumber, includeTransactions: true })),
    );
    for (const block of blocks) {
      for (const tx of block.transactions) {
        if (!same(tx.from, wallet)) continue;
        mined.push({ hash: tx.hash, nonce: tx.nonce, blockNumber: block.number });
      }
    }
  }
  return { mined, latestCount, pendingCount };
}

/** A mined transaction's status, sender and every ERC-20 Transfer it emitted. */
export async function transferReceipt(
  chains: TestChains,
  chain: Chain,
  hash: Hex,
): Promise<TransferReceipt> {
  const receipt = await chains.publicClient(chain).getTransactionReceipt({ hash });
  const transfers: ReceiptTransfer[] = [];
  for (const log of receipt.logs) {
    try {
      const event = decodeEventLog({ abi: STABLE_TOKEN_ABI, data: log.data, topics: log.topics });
      if (event.eventName !== 'Transfer') continue;
      const args = event.args as { from: Address; to: Address; value: bigint };
      transfers.push({ token: log.address, from: args.from, to: args.to, value: args.value });
    } catch {
      // Not one of the token's events.
    }
  }
  return { status: receipt.status, from: receipt.from, transfers };
}

/** Nonces from `first` with no gap and no repeat (sorted input not required). */
export function isContiguous(nonces: number[]): boolean {
  const sorted = [...nonces].sort((a, b) => a - b);
  return sorted.every((nonce, i) => nonce === sorted[0] + i);
}

/**
 * Why a deposit's transaction is not the one transfer it should be (null when it is): mined
 * successfully, sent by the wallet, and emitting exactly one Transfer of `value` of `token`
 * from the wallet to `to`.
 */
export async function transferMismatch(
  chains: TestChains,
  chain: Chain,
  hash: Hex,
  expected: { wallet: Address; token: Address; to: Address; value: bigint },
): Promise<string | null> {
  const receipt = await transferReceipt(chains, chain, hash);
  const [transfer, ...more] = receipt.transfers;
  const ok =
    receipt.status === 'success' &&
    same(receipt.from, expected.wallet) &&
    more.length === 0 &&
    transfer !== undefined &&
    same(transfer.token, expected.token) &&
    same(transfer.from, expected.wallet) &&
    same(transfer.to, expected.to) &&
    transfer.value === expected.value;
  if (ok) return null;
  const shown = receipt.transfers.map((t) => `${t.value} of ${t.token} ${t.from} -> ${t.to}`);
  return `${chain} ${hash}: ${receipt.status} from ${receipt.from}, transfers [${shown.join('; ')}], expected ${expected.value} of ${expected.token} to ${expected.to}`;
}
