import { custom, fallback, type Transport } from 'viem';
import { chainErrorMessage } from './chain-error-message';
import { jsonRpcProvider, type JsonRpcProvider } from './json-rpc-http';

/** What the last probe of one node found: for `/health`, the metrics, and whom to ask. */
export interface NodeStatus {
  /** 1-based position in `<CHAIN>_RPC_URLS`. */
  node: number;
  /** host[:port] only: a URL's path or query may hold a provider's API key. */
  host: string;
  /** Whether it answered the last head poll; null before the first. */
  up: boolean | null;
  /** Its head at the last probe (kept while it is down: the last one it served). */
  head: bigint | null;
  /** Blocks behind the highest head among the chain's nodes (0 for the highest). */
  lagBlocks: number | null;
  /** Up and at most `maxLagBlocks` behind: asked for reads, heads and confirmations. */
  trusted: boolean;
  /** Why it is not trusted (its error, or its lag), else null. */
  detail: string | null;
}

interface Node {
  index: number;
  host: string;
  provider: JsonRpcProvider;
  /** Same node, shorter timeout: a hung node must not hold every head poll for long. */
  probe: JsonRpcProvider;
  chainIdChecked: boolean;
  up: boolean | null;
  head: bigint | null;
  detail: string | null;
  error: unknown;
}

/** Longest a head probe waits for one node. */
const PROBE_TIMEOUT_MS = 2_000;

/**
 * A chain's nodes (`<CHAIN>_RPC_URLS`, or the one `<CHAIN>_RPC_URL`). Every head poll asks all
 * of them, side by side, for their chain id (once) and head; a node that fails, serves another
 * chain, or is more than `maxLagBlocks` behind the highest head is left out until a later poll
 * finds it well again. Reads go through viem's `fallback` transport over the trusted nodes in
 * configured order: a node that fails a call passes it to the next. A lagging node is not
 * asked at all: its "no receipt yet" or older block would be read as the chain's.
 */
export class RpcNodes {
  private readonly nodes: Node[];
  private highest: bigint | null = null;

  constructor(
    readonly chain: string,
    private readonly chainId: number,
    urls: string[],
    private readonly maxLagBlocks: number,
    timeoutMs: number,
  ) {
    if (urls.length === 0) throw new Error(`${chain}: no RPC URL`);
    this.nodes = urls.map((url, k) => ({
      index: k + 1,
      host: new URL(url).host,
      provider: jsonRpcProvider(url, timeoutMs),
      probe: jsonRpcProvider(url, Math.min(timeoutMs, PROBE_TIMEOUT_MS)),
      chainIdChecked: false,
      up: null,
      head: null,
      detail: null,
      error: null,
    }));
  }

  /**
   * viem's `fallback` over one slot per node: slot k is the k-th node trusted now (nodes not
   * probed yet count as trusted), so a call starts at the first trusted node and falls back
   * along the others. No retries of its own: our jobs retry on their own schedule.
   */
  transport(): Transport {
    const slots = this.nodes.map((_, k) =>
      custom(
        {
          request: (args: { method: string; params?: unknown }) => {
            const node = this.askable()[k];
            if (!node) return Promise.reject(new Error(`${this.chain}: no trusted node left`));
            return node.provider.request(args);
          },
        },
        { retryCount: 0 },
      ),
    );
    return fallback(slots, { retryCount: 0 });
  }

  /**
   * Probes every node and answers the highest head among the trusted ones; throws when none
   * answers (the chain is down), with the first node's error.
   */
  async head(): Promise<bigint> {
    await Promise.all(this.nodes.map((node) => this.probeNode(node)));
    const up = this.nodes.filter((n) => n.up && n.head !== null);
    // The first node's own error, as the one node's was before there could be several.
    if (up.length === 0) throw this.nodes[0].error;
    this.highest = up.reduce((max, n) => (n.head! > max ? n.head! : max), up[0].head!);
    return this.highest;
  }

  status(): NodeStatus[] {
    return this.nodes.map((n) => {
      const lag = this.highest !== null && n.head !== null ? Number(this.highest - n.head) : null;
      const lagging = n.up === true && lag !== null && lag > this.maxLagBlocks;
      return {
        node: n.index,
        host: n.host,
        up: n.up,
        head: n.head,
        lagBlocks: lag,
        trusted: this.trusted(n),
        detail: lagging
          ? `${lag} blocks behind the highest head (more than ${this.maxLagBlocks})`
          : n.up === false
            ? n.detail
            : null,
      };
    });
  }

  private trusted(node: Node): boolean {
    if (node.up === null) return true;
    if (!node.up || node.head === null) return false;
    return this.highest === null || this.highest - node.head <= BigInt(this.maxLagBlocks);
  }

  /** Trusted nodes in configured order; when none is, all of them (let the call fail or not). */
  private askable(): Node[] {
    const trusted = this.nodes.filter((n) => this.trusted(n));
    return trusted.length > 0 ? trusted : this.nodes;
  }

  private async probeNode(node: Node): Promise<void> {
    try {
      if (!node.chainIdChecked) {
        const id = Number(await node.probe.request({ method: 'eth_chainId' }));
        if (id !== this.chainId) {
          throw new Error(`${this.chain} node serves chain id ${id}, expected ${this.chainId}`);
        }
        node.chainIdChecked = true;
      }
      node.head = BigInt((await node.probe.request({ method: 'eth_blockNumber' })) as string);
      node.up = true;
      node.detail = null;
      node.error = null;
    } catch (error) {
      node.up = false;
      node.detail = shortError(error);
      node.error = error;
    }
  }
}

function shortError(error: unknown): string {
  return chainErrorMessage(error).slice(0, 200);
}
