import type { EntityManager } from '@mikro-orm/postgresql';
import { TRANSFER_GAS, type ChainGateway } from '../adapters/chain/chain-gateway';
import type { Chain, Stablecoin } from '../domain/chains';
import {
  lowAssets,
  payableNow,
  type Fundable,
  type LowBalanceThresholds,
} from '../domain/hot-wallet-funds';
import type { Fees } from '../domain/payout-rules';

/** Where operator alerts go (the job runner's log). */
export interface FundsLog {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

/**
 * The hot wallet's funds before each signing round: payouts it cannot pay now (gas or token
 * short, counting what is signed and not yet mined) stay PENDING instead of being signed into a
 * transfer that would be refused or revert; they go once the wallet is funded again (the next
 * round, woken by the sweep at the latest). Below the configured thresholds the wallet is
 * reported low. Each alert is logged when it starts and when it ends, not every round.
 */
export class HotWalletFunds {
  /** Per chain, what was last reported: the assets low, and whether payouts were held. */
  private readonly reported = new Map<string, { low: string; held: boolean }>();

  constructor(
    private readonly thresholds: (chain: Chain) => LowBalanceThresholds,
    private readonly log?: FundsLog,
  ) {}

  /** Of `waiting` (in signing order), the ids the wallet can pay now. */
  async payable(
    em: EntityManager,
    gateway: ChainGateway,
    fees: Fees,
    minedNonce: number,
    waiting: Fundable[],
  ): Promise<string[]> {
    if (waiting.length === 0) return [];
    const [held, inFlight] = await Promise.all([
      gateway.balances(),
      this.inFlight(em, gateway, minedNonce),
    ]);
    const gas = TRANSFER_GAS * fees.maxFeePerGas;
    const result = payableNow(held, inFlight, gas, waiting);
    this.report(gateway, held, result.held, gas);
    return result.payable;
  }

  /** Payouts signed from this wallet whose nonce is not mined yet: what they will take. */
  private async inFlight(
    em: EntityManager,
    gateway: ChainGateway,
    minedNonce: number,
  ): Promise<{ transfers: number; tokens: Record<Stablecoin, bigint> }> {
    const rows = await em
      .fork()
      .getConnection()
      .execute<Array<{ asset: Stablecoin; n: string; units: string }>>(
        `select asset, count(*)::text as n, sum(amount_base_units)::text as units from payouts
          where chain = ? and status = 'SIGNED' and from_address = ? and nonce >= ?
          group by asset`,
        [gateway.chain, gateway.hotWallet, minedNonce],
      );
    const tokens: Record<Stablecoin, bigint> = { USDC: 0n, USDT: 0n };
    let transfers = 0;
    for (const row of rows) {
      tokens[row.asset] = BigInt(row.units);
      transfers += Number(row.n);
    }
    return { transfers, tokens };
  }

  private report(
    gateway: ChainGateway,
    held: { native: bigint; tokens: Record<Stablecoin, bigint> },
    short: Fundable[],
    gasPerTransfer: bigint,
  ): void {
    const chain = gateway.chain;
    const low = lowAssets(held, this.thresholds(chain)).join(',');
    const before = this.reported.get(chain) ?? { low: '', held: false };
    const balances = {
      native: held.native.toString(),
      USDC: held.tokens.USDC.toString(),
      USDT: held.tokens.USDT.toString(),
    };
    if (low !== before.low) {
      if (low) {
        this.log?.error(
          { alert: 'hot_wallet_low_balance', chain, low: low.split(','), balances },
          'hot wallet below its low-balance threshold: fund it before payouts wait',
        );
      } else {
        this.log?.info(
          { alert: 'hot_wallet_low_balance', chain, resolved: true },
          'hot wallet funded',
        );
      }
    }
    const isHeld = short.length > 0;
    if (isHeld && !before.held) {
      this.log?.error(
        {
          alert: 'payouts_paused_low_balance',
          chain,
          waiting: short.length,
          gasPerTransfer: gasPerTransfer.toString(),
          balances,
        },
        'payouts wait (PENDING): the hot wallet cannot pay them now; they go once it is funded',
      );
    } else if (before.held) {
      this.log?.info(
        { alert: 'payouts_paused_low_balance', chain, resolved: true },
        'payouts resumed: the hot wallet is funded',
      );
    }
    this.reported.set(chain, { low, held: isHeld });
  }

  /** The chains whose payouts are held now, for the metrics (`onramp_payouts_paused`). */
  paused(chain: string): boolean {
    return this.reported.get(chain)?.held ?? false;
  }
}
