import {
  createPublicClient,
  defineChain,
  encodeFunctionData,
  erc20Abi,
  keccak256,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { Chain } from '../../domain/assets';
import { RpcNodes, type NodeStatus } from './rpc-nodes';
import type { Fees } from '../../domain/payout-rules';

import type {
  ChainBlock,
  ChainSettings,
  HotWalletBalances,
  MinedReceipt,
  Stablecoin,
} from './chain-types';

export type { ChainBlock, ChainSettings, HotWalletBalances, MinedReceipt, Stablecoin };

/** Gas for one ERC-20 `transfer`: ours needs ~52k, mainnet USDT ~65k; unused gas is not paid. */
export const TRANSFER_GAS = 120_000n;

/**
 * One chain as payouts see it: the hot wallet signs locally (the key never leaves the
 * process), and the node is asked only for fees, nonces, receipts and to relay bytes.
 */
export interface ChainGateway {
  readonly chain: Chain;
  readonly chainId: number;
  readonly confirmations: number;
  readonly hotWallet: Address;
  tokenAddress(asset: Stablecoin): Address;
  /**
   * The chain's head: the highest among its trusted nodes, each checked to serve the chain id
   * we sign for (see RpcNodes).
   */
  head(): Promise<bigint>;
  /** Each node as the last head poll found it (for `/health` and the metrics). */
  nodes(): NodeStatus[];
  /** Transactions of the hot wallet mined (`latest`) or known to the node (`pending`). */
  nonce(blockTag: 'latest' | 'pending'): Promise<number>;
  fees(): Promise<Fees>;
  signTransfer(input: {
    asset: Stablecoin;
    to: Address;
    amount: bigint;
    nonce: number;
    fees: Fees;
  }): Promise<{ raw: Hex; hash: Hex }>;
  /** Hands signed bytes to the node; resending bytes it already has is not an error. */
  broadcast(raw: Hex): Promise<void>;
  receipt(hash: Hex): Promise<MinedReceipt | null>;
  /** The canonical block at this height now, or null past the head. */
  block(blockNumber: bigint): Promise<ChainBlock | null>;
  /**
   * The receipts of `hashes`, all mined in block `blockNumber`: the block's receipts in one
   * call where the node has `eth_getBlockReceipts`, else one receipt call each, side by side.
   */
  blockReceipts(blockNumber: bigint, hashes: Hex[]): Promise<Map<Hex, MinedReceipt>>;
  /** What the hot wallet holds, native coin (wei) and each token (base units), at one block. */
  balances(): Promise<HotWalletBalances>;
}

/** Node answers that mean "these bytes, or a transaction with their nonce, are known". */
const ALREADY_KNOWN =
  /already known|already imported|nonce too low|known transaction|replacement transaction underpriced/i;

/** Node answers that mean "this JSON-RPC method is not served here". */
const METHOD_MISSING = /method not found|not supported|does not exist|not available|unsupported/i;

export class ViemChainGateway implements ChainGateway {
  readonly chain: Chain;
  readonly chainId: number;
  readonly confirmations: number;
  readonly hotWallet: Address;
  private readonly client: PublicClient;
  private readonly rpcNodes: RpcNodes;
  private readonly viemChain: ReturnType<typeof defineChain>;
  /** Undefined in processes given only the address: they cannot sign. */
  private readonly account: PrivateKeyAccount | undefined;
  /** Read calls now on the wire, by what they ask (see `shared`). */
  private readonly reading = new Map<string, Promise<unknown>>();
  /** Whether the node answers `eth_getBlockReceipts`; unknown until first asked. */
  private blockReceiptsServed: boolean | undefined;

  constructor(private readonly settings: ChainSettings) {
    this.chain = settings.chain;
    this.chainId = settings.chainId;
    this.confirmations = settings.confirmations;
    const wallet = settings.wallet;
    this.account = 'privateKey' in wallet ? privateKeyToAccount(wallet.privateKey) : undefined;
    this.hotWallet = this.account?.address ?? (wallet as { address: Address }).address;
    const viemChain = (this.viemChain = defineChain({
      id: settings.chainId,
      name: settings.chain,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: settings.rpcUrls } },
    }));
    // Our own jobs retry on their schedule; a hanging node must not hold a job.
    this.rpcNodes = new RpcNodes(
      settings.chain,
      settings.chainId,
      settings.rpcUrls,
      settings.maxLagBlocks ?? 5,
      settings.timeoutMs ?? 5_000,
    );
    this.client = createPublicClient({ chain: viemChain, transport: this.rpcNodes.transport() });
  }

  tokenAddress(asset: Stablecoin): Address {
    return this.settings.tokens[asset];
  }

  head(): Promise<bigint> {
    return this.shared('head', () => this.rpcNodes.head());
  }

  nodes(): NodeStatus[] {
    return this.rpcNodes.status();
  }

  nonce(blockTag: 'latest' | 'pending'): Promise<number> {
    return this.shared(`nonce:${blockTag}`, () =>
      this.client.getTransactionCount({ address: this.hotWallet, blockTag }),
    );
  }

  fees(): Promise<Fees> {
    return this.shared('fees', () => this.estimateFees());
  }

  /**
   * Callers asking the same read while one is on the wire share its answer: every payout
   * being sent asks for head, fees and nonce, and under load dozens did so for the same
   * block. An answer that arrives after the question was asked is as fresh as a new call.
   */
  private shared<T>(key: string, call: () => Promise<T>): Promise<T> {
    const running = this.reading.get(key) as Promise<T> | undefined;
    if (running) return running;
    const started = call().finally(() => this.reading.delete(key));
    this.reading.set(key, started);
    return started;
  }

  private async estimateFees(): Promise<Fees> {
    const estimate = await this.client.estimateFeesPerGas({
      chain: this.viemChain,
      type: 'eip1559',
    });
    return {
      maxFeePerGas: estimate.maxFeePerGas,
      maxPriorityFeePerGas: estimate.maxPriorityFeePerGas,
    };
  }

  async signTransfer(input: {
    asset: Stablecoin;
    to: Address;
    amount: bigint;
    nonce: number;
    fees: Fees;
  }): Promise<{ raw: Hex; hash: Hex }> {
    if (!this.account) {
      throw new Error(
        `${this.chain}: this process holds no hot-wallet key (only the job runner signs)`,
      );
    }
    const raw = await this.account.signTransaction({
      type: 'eip1559',
      chainId: this.chainId,
      nonce: input.nonce,
      to: this.tokenAddress(input.asset),
      value: 0n,
      gas: TRANSFER_GAS,
      maxFeePerGas: input.fees.maxFeePerGas,
      maxPriorityFeePerGas: input.fees.maxPriorityFeePerGas,
      data: encodeFunctionData({
        abi: erc20Abi,
        functionName: 'transfer',
        args: [input.to, input.amount],
      }),
    });
    return { raw, hash: keccak256(raw) };
  }

  async broadcast(raw: Hex): Promise<void> {
    try {
      await this.client.sendRawTransaction({ serializedTransaction: raw });
    } catch (error) {
      if (ALREADY_KNOWN.test(errorText(error))) return;
      throw error;
    }
  }

  async receipt(hash: Hex): Promise<MinedReceipt | null> {
    try {
      const receipt = await this.client.getTransactionReceipt({ hash });
      return {
        hash,
        success: receipt.status === 'success',
        blockNumber: receipt.blockNumber,
        blockHash: receipt.blockHash,
      };
    } catch (error) {
      if (/could not be found|not found/i.test(errorText(error))) return null;
      throw error;
    }
  }

  async block(blockNumber: bigint): Promise<ChainBlock | null> {
    try {
      const block = await this.client.getBlock({ blockNumber, includeTransactions: false });
      return {
        number: blockNumber,
        hash: block.hash,
        parentHash: block.parentHash,
        transactions: block.transactions,
      };
    } catch (error) {
      if ((error as { name?: string }).name === 'BlockNotFoundError') return null;
      throw error;
    }
  }

  async blockReceipts(blockNumber: bigint, hashes: Hex[]): Promise<Map<Hex, MinedReceipt>> {
    const wanted = new Set(hashes.map((h) => h.toLowerCase()));
    const found = new Map<Hex, MinedReceipt>();
    if (this.blockReceiptsServed !== false) {
      try {
        const receipts = await this.client.getBlockReceipts({ blockNumber });
        this.blockReceiptsServed = true;
        for (const r of receipts) {
          const hash = r.transactionHash.toLowerCase() as Hex;
          if (!wanted.has(hash)) continue;
          found.set(hash, {
            hash,
            success: r.status === 'success',
            blockNumber: r.blockNumber,
            blockHash: r.blockHash,
          });
        }
        return found;
      } catch (error) {
        // Only a node that never served the method is asked receipt by receipt from now on.
        if (this.blockReceiptsServed || !METHOD_MISSING.test(errorText(error))) throw error;
        this.blockReceiptsServed = false;
      }
    }
    const receipts = await Promise.all([...wanted].map((hash) => this.receipt(hash as Hex)));
    for (const r of receipts) if (r) found.set(r.hash.toLowerCase() as Hex, r);
    return found;
  }

  async balances(): Promise<HotWalletBalances> {
    // head() checks the node serves our chain id: balances from another chain would mislead.
    const blockNumber = await this.head();
    const token = (asset: Stablecoin) =>
      this.client.readContract({
        address: this.tokenAddress(asset),
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [this.hotWallet],
        blockNumber,
      });
    const [native, usdc, usdt] = await Promise.all([
      this.client.getBalance({ address: this.hotWallet, blockNumber }),
      token('USDC'),
      token('USDT'),
    ]);
    return { blockNumber, native, tokens: { USDC: usdc, USDT: usdt } };
  }
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const details = (error as { details?: string }).details ?? '';
  return `${error.message} ${details}`;
}
