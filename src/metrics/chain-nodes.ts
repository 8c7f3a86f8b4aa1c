import type { Logger } from 'pino';
import { formatEther } from 'viem';
import { Gauge, type Registry } from 'prom-client';
import type { ChainGateway } from '../adapters/chain/chain-gateway';
import type { Chain } from '../domain/chains';
import { fromBaseUnits } from '../domain/payout-rules';
import {
  lowAssets,
  type LowBalanceThresholds,
  type WalletHoldings,
} from '../domain/hot-wallet-funds';

/** How long a scrape waits for one chain's balances before leaving its series out. */
const BALANCE_TIMEOUT_MS = 3_000;

export interface ChainNodeMetricsOptions {
  /** The chains this process uses (configured ones only). */
  gateways: () => ChainGateway[];
  thresholds: (chain: Chain) => LowBalanceThresholds;
  /** Whether the chain's payouts are held for want of funds now. */
  paused: (chain: string) => boolean;
  log: Logger;
}

/**
 * Per node and per hot wallet, read at each scrape:
 * - `onramp_chain_node_up{chain,node,host}`, `onramp_chain_node_head{...}`,
 *   `onramp_chain_node_trusted{...}`: each RPC node as the last head poll found it (the block
 *   follower polls several times a second). `host` only: a URL's path may hold an API key.
 * - `onramp_hot_wallet_balance{chain,asset}`: native coin (asset="native", in ETH or POL) and
 *   each token (in whole tokens), read from the node now; a chain that does not answer within
 *   3 s has no series in that scrape.
 * - `onramp_hot_wallet_low{chain,asset}`: 1 below its low-balance threshold.
 * - `onramp_payouts_paused{chain}`: 1 while payouts wait because the wallet cannot pay them.
 */
export function registerChainNodeMetrics(registry: Registry, options: ChainNodeMetricsOptions) {
  const nodeLabels = ['chain', 'node', 'host'] as const;
  // prom-client collects in registration order: the gauge whose `collect` fills the others of
  // its group is registered first.
  const head = new Gauge({
    name: 'onramp_chain_node_head',
    help: 'RPC nodes: the head block the node last served.',
    labelNames: nodeLabels,
    registers: [],
  });
  const trusted = new Gauge({
    name: 'onramp_chain_node_trusted',
    help: 'RPC nodes: 1 if up and within RPC_MAX_LAG_BLOCKS of the highest head (used for reads and confirmations).',
    labelNames: nodeLabels,
    registers: [],
  });
  new Gauge({
    name: 'onramp_chain_node_up',
    help: 'RPC nodes: 1 if the last head poll was answered.',
    labelNames: nodeLabels,
    registers: [registry],
    collect() {
      this.reset();
      head.reset();
      trusted.reset();
      for (const gateway of options.gateways()) {
        for (const node of gateway.nodes()) {
          const labels = { chain: gateway.chain, node: String(node.node), host: node.host };
          if (node.up === null) continue; // not asked yet: no series rather than a false 0
          this.set(labels, node.up ? 1 : 0);
          if (node.head !== null) head.set(labels, Number(node.head));
          trusted.set(labels, node.trusted ? 1 : 0);
        }
      }
    },
  });
  registry.registerMetric(head);
  registry.registerMetric(trusted);
  // Both wallet gauges are collected side by side (prom-client gathers metrics concurrently):
  // they share one read of the nodes per scrape.
  let reading: Promise<Array<{ chain: Chain; held: WalletHoldings }>> | null = null;
  const readWallets = () => {
    reading ??= readAllWallets(options).finally(() => {
      reading = null;
    });
    return reading;
  };
  new Gauge({
    name: 'onramp_hot_wallet_low',
    help: 'Hot wallet: 1 when the asset is below its low-balance threshold.',
    labelNames: ['chain', 'asset'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const { chain, held } of await readWallets()) {
        const lowNow = new Set(lowAssets(held, options.thresholds(chain)));
        for (const asset of ['native', 'USDC', 'USDT'] as const) {
          this.set({ chain, asset }, lowNow.has(asset) ? 1 : 0);
        }
      }
    },
  });
  new Gauge({
    name: 'onramp_hot_wallet_balance',
    help: 'Hot wallet balance per chain and asset: native coin in ETH/POL, tokens in whole units.',
    labelNames: ['chain', 'asset'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const { chain, held } of await readWallets()) {
        this.set({ chain, asset: 'native' }, Number(formatEther(held.native)));
        for (const asset of ['USDC', 'USDT'] as const) {
          this.set({ chain, asset }, Number(fromBaseUnits(held.tokens[asset])));
        }
      }
    },
  });
  new Gauge({
    name: 'onramp_payouts_paused',
    help: 'Configured chains: 1 while payouts wait (PENDING) because the hot wallet cannot pay them.',
    labelNames: ['chain'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const gateway of options.gateways()) {
        this.set({ chain: gateway.chain }, options.paused(gateway.chain) ? 1 : 0);
      }
    },
  });
}

/** Each chain's hot-wallet balances now; a chain that fails or takes over 3 s is left out. */
async function readAllWallets(
  options: ChainNodeMetricsOptions,
): Promise<Array<{ chain: Chain; held: WalletHoldings }>> {
  const read = await Promise.all(
    options
      .gateways()
      .map(async (gateway): Promise<{ chain: Chain; held: WalletHoldings } | null> => {
        let timer: NodeJS.Timeout | undefined;
        try {
          const held = await Promise.race([
            gateway.balances(),
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => reject(new Error('timed out')), BALANCE_TIMEOUT_MS);
            }),
          ]);
          return { chain: gateway.chain, held };
        } catch (error) {
          options.log.warn(
            { err: error, chain: gateway.chain },
            'onramp_hot_wallet_balance skipped for this chain in this scrape',
          );
          return null;
        } finally {
          clearTimeout(timer);
        }
      }),
  );
  return read.filter((r): r is { chain: Chain; held: WalletHoldings } => r !== null);
}
