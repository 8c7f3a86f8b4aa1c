import { z } from 'zod';
import { optionalAddress, optionalUrl, positiveInt } from './config-fields';
import type { Chain } from './domain/assets';

/**
 * Confirmations a payout needs (blocks, counting its own) when `<CHAIN>_CONFIRMATIONS` is unset,
 * from each chain's published finality guidance (docs/chains.md, "Finality"):
 * - ETHEREUM 64: two epochs of 32 slots (~12.8 min); a block that deep is under a justified
 *   checkpoint (the `safe` head), which only a violation of the honest-majority assumption can
 *   revert.
 * - BASE 60: ~2 min of 2 s blocks, the "L1 batch inclusion" stage of Base's finality page, after
 *   which no Base block has ever been reorganised.
 * - POLYGON 32: milestones finalise Polygon PoS blocks in 2-5 s since Heimdall v2; 32 blocks
 *   (~64 s) leave a wide margin and cover the 32-block reorgs seen before milestones.
 * `npm start`'s local anvil chains (and the tests' chains) set 1: blocks there are never
 * reorganised unless a test does it on purpose.
 */
export const FINALITY_CONFIRMATIONS: Record<Chain, number> = {
  BASE: 60,
  ETHEREUM: 64,
  POLYGON: 32,
};

/** Comma-separated http(s) URLs, each checked; unset or empty means none. */
const optionalUrlList = z
  .string()
  .optional()
  .transform((text, ctx) => {
    if (text === undefined) return undefined;
    const urls = text
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean);
    for (const url of urls) {
      if (!z.string().url().safeParse(url).success || !/^https?:\/\//.test(url)) {
        ctx.addIssue({ code: 'custom', message: `${url} is not an http(s) URL` });
        return z.NEVER;
      }
    }
    return urls.length > 0 ? urls : undefined;
  });

/** A native-coin amount (ETH, POL) as a decimal string, e.g. 0.05. */
const nativeAmount = (fallback: string) =>
  z
    .string()
    .regex(/^[0-9]{1,9}(\.[0-9]{1,18})?$/, 'must be an amount of the native coin such as 0.05')
    .default(fallback);

/** The chains' settings, spread into `configSchema`. */
export const chainConfigFields = {
  /**
   * Chains: unset RPC URLs mean the local anvil chains `npm start` runs (it fills these in for
   * the processes it starts). Token addresses are the USDC and USDT contracts on each chain.
   */
  BASE_RPC_URL: optionalUrl,
  ETHEREUM_RPC_URL: optionalUrl,
  POLYGON_RPC_URL: optionalUrl,
  /**
   * Several nodes of one chain, comma-separated, instead of `<CHAIN>_RPC_URL` (not both): a node
   * that fails is skipped for the next (viem's `fallback`), and one whose head is more than
   * `RPC_MAX_LAG_BLOCKS` behind the highest is not asked while it lags.
   */
  BASE_RPC_URLS: optionalUrlList,
  ETHEREUM_RPC_URLS: optionalUrlList,
  POLYGON_RPC_URLS: optionalUrlList,
  /** A node whose head is further behind the chain's highest head is not trusted (confirmations). */
  RPC_MAX_LAG_BLOCKS: positiveInt(5),
  BASE_USDC_ADDRESS: optionalAddress,
  BASE_USDT_ADDRESS: optionalAddress,
  ETHEREUM_USDC_ADDRESS: optionalAddress,
  ETHEREUM_USDT_ADDRESS: optionalAddress,
  POLYGON_USDC_ADDRESS: optionalAddress,
  POLYGON_USDT_ADDRESS: optionalAddress,
  /**
   * Blocks a payout's block needs, counting its own, before its deposit is SETTLED (or its
   * withdrawal COMPLETED). Defaults from each chain's finality guidance: BASE 60, ETHEREUM 64,
   * POLYGON 32 (docs/chains.md); `npm start`'s local chains use 1.
   */
  BASE_CONFIRMATIONS: positiveInt(FINALITY_CONFIRMATIONS.BASE),
  ETHEREUM_CONFIRMATIONS: positiveInt(FINALITY_CONFIRMATIONS.ETHEREUM),
  POLYGON_CONFIRMATIONS: positiveInt(FINALITY_CONFIRMATIONS.POLYGON),
  /**
   * Below this much native coin (ETH on BASE and ETHEREUM, POL on POLYGON) the hot wallet is
   * reported low (an operator alert and `onramp_hot_wallet_low`). Payouts pause only when the
   * gas they need is not there.
   */
  BASE_HOT_WALLET_MIN_GAS: nativeAmount('0.01'),
  ETHEREUM_HOT_WALLET_MIN_GAS: nativeAmount('0.1'),
  POLYGON_HOT_WALLET_MIN_GAS: nativeAmount('10'),
  /** Below this many USDC (or USDT) on a chain the hot wallet is reported low for that token. */
  HOT_WALLET_MIN_TOKEN_BALANCE: z
    .string()
    .regex(/^[0-9]{1,12}(\.[0-9]{1,6})?$/, 'must be a token amount such as 1000 or 1000.50')
    .default('1000'),
};

/** The nodes configured for a chain: `<CHAIN>_RPC_URLS`, else `<CHAIN>_RPC_URL`, else none. */
export function chainRpcUrls(
  config: { [K in `${Chain}_RPC_URL`]?: string } & { [K in `${Chain}_RPC_URLS`]?: string[] },
  chain: Chain,
): string[] {
  return (
    config[`${chain}_RPC_URLS`] ?? (config[`${chain}_RPC_URL`] ? [config[`${chain}_RPC_URL`]!] : [])
  );
}

/** Problems between the chain settings: a chain's one URL and its list are exclusive. */
export function chainConfigProblems(
  config: Record<string, unknown>,
): Array<{ path: string[]; message: string }> {
  const problems: Array<{ path: string[]; message: string }> = [];
  for (const chain of ['BASE', 'ETHEREUM', 'POLYGON'] as const) {
    if (config[`${chain}_RPC_URL`] && config[`${chain}_RPC_URLS`]) {
      problems.push({
        path: [`${chain}_RPC_URLS`],
        message: `set ${chain}_RPC_URLS or ${chain}_RPC_URL, not both`,
      });
    }
  }
  return problems;
}

/** `<CHAIN>_CONFIRMATIONS` set in `env`: `npm start` keeps them over its local chains' 1. */
export function confirmationsSetIn(env: NodeJS.ProcessEnv): Record<string, string> {
  const set: Record<string, string> = {};
  for (const chain of ['BASE', 'ETHEREUM', 'POLYGON'] as const) {
    const value = env[`${chain}_CONFIRMATIONS`];
    if (value) set[`${chain}_CONFIRMATIONS`] = value;
  }
  return set;
}
