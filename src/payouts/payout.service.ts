import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import type { Config } from '../config';
import { Payout } from './payout.entity';
import type { ChainGateway } from '../adapters/chain/chain-gateway';
import type { ChainRegistry } from '../adapters/chain/chain-registry';
import { outageOutlasted, type Fees } from '../domain/payout-rules';
import type { LedgerService } from '../ledger';
import type { ChainHealth as ChainHealthService } from './chain-health-port';
import { PayoutBroadcaster } from './payout-broadcast';
import { FeeBumper } from './payout-bump';
import { PayoutCanceller } from './payout-cancel';
import { lockPendingPayoutOf } from './payout-reads';
import { PayoutConfirmer, type CheckOutcome } from './payout-confirm';
import { createPayouts, type NewPayout } from './payout-create';
import type {
  CancelledPayoutOwner,
  MinedPayout,
  MinedPayoutBooking,
  PayoutRiskReview,
} from './payout-ports';
import { PayoutReorgs } from './payout-reorg';
import { HotWalletFunds } from './hot-wallet-funds';
import { lowBalanceThresholds } from '../domain/hot-wallet-funds';
import { PayoutSigner } from './payout-sign';
import { PayoutSigningDrain, type SigningLog, type SigningTotals } from './signing-drain';

export type { NewPayout, SigningLog, SigningTotals };

export type SendOutcome = 'signed' | 'waiting' | 'rejected' | 'cancelled' | 'skipped';

/**
 * On-chain payouts: one row per transfer owed, signed once under the hot wallet's locked nonce
 * row and broadcast from stored bytes. The order of events makes a double send impossible:
 * the signed bytes and the nonce commit together before anything is broadcast, every retry
 * resends exactly those bytes (or a fee-bumped replacement at the SAME nonce), and the nonce
 * can be mined only once.
 *
 * The module's facade over its stages (create, sign, broadcast, confirm, bump, cancel; each
 * in its own file): what deposits, withdrawals, the jobs and the sweep call.
 */
export class PayoutService {
  private readonly broadcaster: PayoutBroadcaster;
  private readonly canceller: PayoutCanceller;
  private readonly signer: PayoutSigner;
  private readonly confirmer: PayoutConfirmer;
  private readonly signing: PayoutSigningDrain;
  /** Unsettles payouts booked from blocks a reorg replaced (the block follower's). */
  readonly reorgs: PayoutReorgs;
  /** Holds back payouts the hot wallet cannot pay; reports it low (metrics read `paused`). */
  readonly funds: HotWalletFunds;

  constructor(
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly chains: ChainRegistry,
    private readonly health: ChainHealthService,
    ledger: LedgerService,
    /** Books mined payouts with their deposits and withdrawals (flows/confirm-payouts). */
    private readonly settler: MinedPayoutBooking,
    /** Moves the deposit of a cancelled payout (flows/cancel-payout). */
    cancelledOwner: CancelledPayoutOwner,
    risk: PayoutRiskReview,
    /** Where the signing drain reports its rounds and failures (the job runner's log). */
    signingLog?: SigningLog,
  ) {
    this.broadcaster = new PayoutBroadcaster(clock, chains, health);
    this.canceller = new PayoutCanceller(clock, ledger, cancelledOwner);
    this.signer = new PayoutSigner(clock, risk, this.canceller);
    this.funds = new HotWalletFunds((chain) => lowBalanceThresholds(config, chain), signingLog);
    this.signing = new PayoutSigningDrain(
      clock,
      config,
      chains,
      health,
      this.signer,
      this.broadcaster,
      this.canceller,
      signingLog,
      this.funds,
    );
    const bumper = new FeeBumper(clock, this.broadcaster);
    this.confirmer = new PayoutConfirmer(clock, config, this.settler, this.broadcaster, bumper);
    this.reorgs = new PayoutReorgs(clock, this.broadcaster);
  }

  /** Inside the caller's transaction (deposit FX, or withdrawal request), in one statement. */
  create(tx: EntityManager, inputs: NewPayout[]): Promise<Payout[]> {
    return createPayouts(tx, this.clock, inputs);
  }

  /**
   * Wakes this process's signing drain for the chain: its PENDING payouts are signed in one
   * transaction and broadcast (see PayoutSigningDrain). Resolves when the run it started or
   * joined ends.
   */
  signPending(em: EntityManager, chain: string): Promise<SigningTotals> {
    return this.signing.wake(em, chain);
  }

  /** Signs the chain's PENDING payouts `gatherMs` from now, with all that arrive meanwhile. */
  signPendingSoon(openEm: () => EntityManager, chain: string, gatherMs: number): void {
    this.signing.wakeAfter(openEm, chain, gatherMs);
  }

  /** No new signing rounds; waits for those running (shutdown). */
  stopSigning(): Promise<void> {
    return this.signing.stop();
  }

  /**
   * One payout on its own (tests, tools; the runner uses `signPending`): takes a PENDING payout to SIGNED and broadcasts it, if its chain is up and risk review
   * approves; a SIGNED one is rebroadcast. Any number of runners may call this at once.
   */
  async send(em: EntityManager, payoutId: string): Promise<SendOutcome> {
    const payout = await em.fork().findOne(Payout, { id: payoutId });
    if (!payout) return 'skipped';
    if (payout.status === 'SIGNED') {
      await this.broadcaster.rebroadcast(em, payout);
      return 'skipped';
    }
    if (payout.status !== 'PENDING') return 'skipped';
    const gateway = this.chains.get(payout.chain);
    const down = await this.health.unavailable(em, payout.chain, payout.merchantId);
    if (down || !gateway) {
      if (
        outageOutlasted(payout.createdAt, this.clock.now(), this.config.CHAIN_OUTAGE_MAX_SECONDS)
      ) {
        return (await this.cancel(em, payout.id, 'chain outage')) ? 'cancelled' : 'skipped';
      }
      return 'waiting';
    }
    let fees: Fees;
    let minedNonce: number;
    try {
      [fees, minedNonce] = await Promise.all([gateway.fees(), gateway.nonce('latest')]);
    } catch (error) {
      await this.health.record(em, payout.chain, error);
      return 'waiting';
    }
    const signed = await this.signer.sign(em, gateway, payoutId, { fees, minedNonce });
    if (signed === 'rejected' || signed === 'skipped') return signed;
    await this.broadcaster.broadcast(em, payoutId, gateway, signed.raw);
    return 'signed';
  }

  /** One SIGNED payout against the chain (the sweep): confirm, bump or resend. */
  check(
    em: EntityManager,
    payout: Payout,
    gateway: ChainGateway,
    chainState: { head: bigint; minedNonce: number },
  ): Promise<CheckOutcome> {
    return this.confirmer.check(em, payout, gateway, chainState);
  }

  /**
   * Books payouts whose transactions are mined (the block follower: a block's worth), in one
   * transaction; those no longer SIGNED are skipped. Returns how many it booked.
   */
  settleMined(em: EntityManager, mined: MinedPayout[]): Promise<number> {
    return this.settler.settle(em, mined);
  }

  /** Cancels a payout never signed, past its chain's outage maximum. */
  cancel(em: EntityManager, payoutId: string, why: 'chain outage'): Promise<boolean> {
    return this.canceller.cancel(em, payoutId, why);
  }

  /** Cancels a locked PENDING payout and moves its owner (see PayoutCanceller). */
  cancelLocked(
    tx: EntityManager,
    payout: Payout,
    why: string,
    depositReason: string | null,
  ): Promise<void> {
    return this.canceller.cancelLocked(tx, payout, why, depositReason);
  }

  /**
   * The deposit's PENDING payout, if any, locked and cancelled in `tx`; the deposit is left to
   * the caller (a bank reversal moves it itself).
   */
  async cancelPendingOfDeposit(tx: EntityManager, depositId: string, why: string): Promise<void> {
    const payout = await lockPendingPayoutOf(tx, depositId);
    if (payout) await this.canceller.cancelLocked(tx, payout, why, null);
  }
}
