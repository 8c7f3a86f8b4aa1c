import type { EntityManager } from '@mikro-orm/postgresql';
import type { Hex } from 'viem';
import type { Clock } from '../clock';
import type { Config } from '../config';
import type { ChainRegistry } from '../adapters/chain/chain-registry';
import { outageOutlasted } from '../domain/payout-rules';
import type { ChainHealth as ChainHealthService } from './chain-health-port';
import type { PayoutBroadcaster } from './payout-broadcast';
import type { PayoutCanceller } from './payout-cancel';
import { SIGN_BATCH, type ChainState, type PayoutSigner } from './payout-sign';
import { startBatchSpans, type BatchSpans } from '../lib/trace-context';
import type { HotWalletFunds } from './hot-wallet-funds';
import type { Stablecoin } from '../domain/chains';

export interface SigningLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** What one run of a chain's drain did (all its rounds). */
export interface SigningTotals {
  signed: number;
  rejected: number;
  cancelled: number;
}

interface PendingRow {
  id: string;
  merchant_id: string;
  asset: Stablecoin;
  amount_base_units: string;
  created_at: Date | string;
  trace_parent: string | null;
}

interface Lane {
  running: Promise<SigningTotals> | null;
  again: boolean;
}

const SILENT: SigningLog = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/**
 * This process's signer, one per chain: woken by each new payout's NOTIFY and by the sweep
 * for a payout left PENDING. A round reads the chain once, signs the chain's oldest PENDING
 * payouts (up to SIGN_BATCH) in ONE transaction under the hot wallet's advisory lock and
 * nonce row, and broadcasts them all right after commit. At most one run per chain at a time
 * in this process; a wake during a run asks it for one more round (as the settlement drain).
 * Other runners' drains meet this one at the wallet's lock, so no nonce is signed twice; a
 * runner killed between commit and broadcast leaves SIGNED payouts the sweep rebroadcasts.
 */
export class PayoutSigningDrain {
  private readonly lanes = new Map<string, Lane>();
  /** Per chain, the timer of a wake that gathers (see `wakeAfter`). */
  private readonly gathering = new Map<string, NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly chains: ChainRegistry,
    private readonly health: ChainHealthService,
    private readonly signer: PayoutSigner,
    private readonly broadcaster: PayoutBroadcaster,
    private readonly canceller: PayoutCanceller,
    private readonly log: SigningLog = SILENT,
    /** Holds back payouts the hot wallet cannot pay now (they stay PENDING). */
    private readonly funds?: HotWalletFunds,
  ) {}

  /** Starts a run for the chain, or asks the current one for another round. */
  wake(em: EntityManager, chain: string): Promise<SigningTotals> {
    if (this.stopped) return Promise.resolve({ signed: 0, rejected: 0, cancelled: 0 });
    let lane = this.lanes.get(chain);
    if (!lane) {
      lane = { running: null, again: false };
      this.lanes.set(chain, lane);
    }
    if (lane.running) {
      lane.again = true;
      return lane.running;
    }
    const started = lane;
    started.running = this.run(em, chain, started).finally(() => {
      started.running = null;
    });
    return started.running;
  }

  /**
   * Wakes the chain's drain `gatherMs` from now, once however many ask meanwhile: the payouts
   * that arrive within the window are signed by one round (one transaction, one read of fees
   * and nonce, one broadcast record) instead of a round each. At 20 payouts a second a round
   * per payout cost about 15 statements and three node calls each. The wait is well inside a
   * block (the payouts still go out together), and a wake while a round runs only asks for
   * another round, as `wake` does.
   */
  wakeAfter(openEm: () => EntityManager, chain: string, gatherMs: number): void {
    if (this.stopped || this.gathering.has(chain)) return;
    if (gatherMs <= 0) {
      void this.wake(openEm(), chain);
      return;
    }
    const timer = setTimeout(() => {
      this.gathering.delete(chain);
      void this.wake(openEm(), chain);
    }, gatherMs);
    this.gathering.set(chain, timer);
  }

  /** No more rounds; waits for those in progress (shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    // A gathered wake not yet due is dropped: its payouts stay PENDING for the next runner.
    for (const timer of this.gathering.values()) clearTimeout(timer);
    this.gathering.clear();
    await Promise.all([...this.lanes.values()].map((lane) => lane.running));
  }

  private async run(em: EntityManager, chain: string, lane: Lane): Promise<SigningTotals> {
    const totals: SigningTotals = { signed: 0, rejected: 0, cancelled: 0 };
    do {
      lane.again = false;
      // A full batch means more may wait; a round that moved nothing stops (all waiting).
      for (;;) {
        const round = await this.round(em, chain, totals).catch((error: unknown) => {
          this.log.warn({ err: error, chain }, 'payout signing round failed');
          return { picked: 0, moved: 0 };
        });
        if (round.picked < SIGN_BATCH || round.moved === 0 || this.stopped) break;
      }
    } while (lane.again && !this.stopped);
    return totals;
  }

  /** One round: returns how many PENDING payouts it picked and how many it moved. */
  private async round(
    em: EntityManager,
    chain: string,
    totals: SigningTotals,
  ): Promise<{ picked: number; moved: number }> {
    const pending = await em
      .fork()
      .getConnection()
      .execute<PendingRow[]>(
        `select id, merchant_id, asset, amount_base_units::text, created_at, trace_parent
           from payouts
          where chain = ? and status = 'PENDING' order by created_at, id limit ?`,
        [chain, SIGN_BATCH],
      );
    if (pending.length === 0) return { picked: 0, moved: 0 };
    // Tracing on: a span per payout created in a traced settlement, joining its trace.
    const spans = startBatchSpans(
      'payout.sign_and_send',
      pending.map((p) => ({ id: p.id, traceParent: p.trace_parent })),
      { 'onramp.chain': chain, 'onramp.payouts.round_size': pending.length },
    );
    try {
      return await this.signRound(em, chain, pending, totals, spans);
    } finally {
      spans.endAll();
    }
  }

  private async signRound(
    em: EntityManager,
    chain: string,
    pending: PendingRow[],
    totals: SigningTotals,
    spans: BatchSpans,
  ): Promise<{ picked: number; moved: number }> {
    const ready = await this.cancelOrHold(em, chain, pending, totals);
    const gateway = this.chains.get(chain);
    const before = totals.signed + totals.rejected + totals.cancelled;
    const moved = () => totals.signed + totals.rejected + totals.cancelled - before;
    if (ready.length === 0 || !gateway) return { picked: pending.length, moved: moved() };
    let chainState: ChainState;
    let payable = ready;
    try {
      const [fees, minedNonce] = await Promise.all([gateway.fees(), gateway.nonce('latest')]);
      chainState = { fees, minedNonce };
      if (this.funds) {
        const byId = new Map(pending.map((p) => [p.id, p]));
        payable = await this.funds.payable(
          em,
          gateway,
          fees,
          minedNonce,
          ready.map((id) => ({
            id,
            asset: byId.get(id)!.asset,
            amountBaseUnits: BigInt(byId.get(id)!.amount_base_units),
          })),
        );
      }
    } catch (error) {
      await this.health.record(em, chain, error);
      return { picked: pending.length, moved: moved() };
    }
    if (payable.length === 0) return { picked: pending.length, moved: moved() };
    const results = await this.signer.signAll(em, gateway, payable, chainState);
    const signed: Array<{ payoutId: string; raw: Hex }> = [];
    results.forEach((result, k) => {
      if ('error' in result) {
        this.log.warn({ err: result.error, payoutId: payable[k], chain }, 'payout not signed');
        spans.end(payable[k], undefined, result.error);
        return;
      }
      const value = result.value as Awaited<typeof result.value>;
      if (value === 'rejected') totals.rejected += 1;
      else if (typeof value === 'object') signed.push({ payoutId: payable[k], raw: value.raw });
    });
    totals.signed += signed.length;
    const relayed = await this.broadcaster.broadcastAll(em, gateway, signed);
    for (const { payoutId } of signed) {
      spans.end(payoutId, { 'onramp.payout.id': payoutId, 'onramp.payout.status': 'SIGNED' });
    }
    if (signed.length > 0 || totals.rejected > 0) {
      this.log.info({ chain, signed: signed.length, relayed }, 'payouts signed');
    }
    return { picked: pending.length, moved: moved() };
  }

  /**
   * The payouts that may be signed now. While the chain (or, in the sandbox, the merchant's
   * chainOutage scenario) is down, payouts stay PENDING, and those past the outage maximum
   * are cancelled: what `send` did per payout, with the node probed once per round.
   */
  private async cancelOrHold(
    em: EntityManager,
    chain: string,
    pending: PendingRow[],
    totals: SigningTotals,
  ): Promise<string[]> {
    const merchants = [...new Set(pending.map((p) => p.merchant_id))];
    // Side by side, so the probe inside is shared (ChainHealthService.probe).
    const down = new Map(
      await Promise.all(
        merchants.map(async (m) => [m, await this.health.unavailable(em, chain, m)] as const),
      ),
    );
    const gateway = this.chains.get(chain);
    const now = this.clock.now();
    const ready: string[] = [];
    for (const payout of pending) {
      if (gateway && !down.get(payout.merchant_id)) {
        ready.push(payout.id);
        continue;
      }
      const since = new Date(payout.created_at);
      if (outageOutlasted(since, now, this.config.CHAIN_OUTAGE_MAX_SECONDS)) {
        if (await this.canceller.cancel(em, payout.id, 'chain outage')) totals.cancelled += 1;
      }
    }
    return ready;
  }
}
