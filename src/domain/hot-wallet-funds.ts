import { parseEther } from 'viem';
import type { Chain, Stablecoin } from './chains';
import { toBaseUnits } from './payout-rules';

/** What the hot wallet holds on one chain: native coin in wei, each token in base units. */
export interface WalletHoldings {
  native: bigint;
  tokens: Record<Stablecoin, bigint>;
}

/** The low-balance thresholds (src/config-chains.ts), in the same units. */
export interface LowBalanceThresholds {
  /** `<CHAIN>_HOT_WALLET_MIN_GAS`, in wei. */
  nativeWei: bigint;
  /** `HOT_WALLET_MIN_TOKEN_BALANCE`, in base units, for each token. */
  tokenUnits: bigint;
}

export function lowBalanceThresholds(
  config: { [K in `${Chain}_HOT_WALLET_MIN_GAS`]: string } & {
    HOT_WALLET_MIN_TOKEN_BALANCE: string;
  },
  chain: Chain,
): LowBalanceThresholds {
  return {
    nativeWei: parseEther(config[`${chain}_HOT_WALLET_MIN_GAS`]),
    tokenUnits: toBaseUnits(config.HOT_WALLET_MIN_TOKEN_BALANCE),
  };
}

/** The assets a wallet is low on: 'native' and/or a token. */
export function lowAssets(
  held: WalletHoldings,
  thresholds: LowBalanceThresholds,
): Array<'native' | Stablecoin> {
  const low: Array<'native' | Stablecoin> = [];
  if (held.native < thresholds.nativeWei) low.push('native');
  for (const asset of ['USDC', 'USDT'] as const) {
    if (held.tokens[asset] < thresholds.tokenUnits) low.push(asset);
  }
  return low;
}

/** A payout waiting to be signed, as the funds check sees it. */
export interface Fundable {
  id: string;
  asset: Stablecoin;
  amountBaseUnits: bigint;
}

/**
 * Which of `waiting` (in order) the wallet can pay now without a transfer failing: each needs
 * its amount of its token and `gasPerTransfer` wei of native coin on top of what the payouts
 * already signed but not yet mined (`inFlight`) will take. A payout that does not fit waits;
 * a later, smaller one may still go.
 */
export function payableNow(
  held: WalletHoldings,
  inFlight: { transfers: number; tokens: Record<Stablecoin, bigint> },
  gasPerTransfer: bigint,
  waiting: Fundable[],
): { payable: string[]; held: Fundable[] } {
  let native = held.native - BigInt(inFlight.transfers) * gasPerTransfer;
  const tokens = {
    USDC: held.tokens.USDC - inFlight.tokens.USDC,
    USDT: held.tokens.USDT - inFlight.tokens.USDT,
  };
  const payable: string[] = [];
  const short: Fundable[] = [];
  for (const payout of waiting) {
    if (native >= gasPerTransfer && tokens[payout.asset] >= payout.amountBaseUnits) {
      native -= gasPerTransfer;
      tokens[payout.asset] -= payout.amountBaseUnits;
      payable.push(payout.id);
    } else {
      short.push(payout);
    }
  }
  return { payable, held: short };
}
