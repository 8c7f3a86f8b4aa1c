import type { EntityManager } from '@mikro-orm/postgresql';
import type { BatchResult, DepositSettlementService } from './deposit-settlement.service';

interface DrainLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/**
 * A job runner's settlement loop: settles batches until one comes back short (nothing more is
 * waiting). Woken by each NOTIFY of a deposit entering PENDING_FX and by the `settle-deposits`
 * sweep; wakes are coalesced: a wake during a run makes that run go once more, so runs never
 * pile up in parallel within a process. Runners share the work through the batch claims.
 */
export class SettlementDrain {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly settlement: DepositSettlementService,
    private readonly em: () => EntityManager,
    private readonly log: DrainLog,
    private readonly batchSize: number,
    /**
     * A run starts this long after the wake that found the drain idle, so the deposits that
     * arrive meanwhile settle in the same batch (one transaction, one ledger statement) instead
     * of one transaction each: at 20 deposits a second that halves the job runner's
     * statements per deposit (bench/README.md, issue 19). 0: at once.
     */
    private readonly gatherMs = 0,
  ) {}

  /** Starts a run, or asks the current one for another pass; resolves when the run ends. */
  wake(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    const gathered =
      this.gatherMs > 0
        ? new Promise<void>((resolve) => setTimeout(resolve, this.gatherMs))
        : Promise.resolve();
    this.running = gathered
      .then(() => this.run())
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  /** No more batches; waits for the one in progress (shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async run(): Promise<void> {
    do {
      this.again = false;
      await this.pass();
    } while (this.again && !this.stopped);
  }

  private async pass(): Promise<void> {
    while (!this.stopped) {
      let result: BatchResult;
      try {
        result = await this.settlement.settleBatch(this.em());
      } catch (error) {
        // Claims expire and the next wake or sweep takes the deposits again.
        this.log.warn({ err: error }, 'settlement batch failed');
        return;
      }
      this.report(result);
      if (result.claimed < this.batchSize) return;
    }
  }

  private report(result: BatchResult): void {
    if (result.claimed === 0) return;
    const counts: Record<string, number> = {};
    for (const outcome of result.outcomes.values()) counts[outcome] = (counts[outcome] ?? 0) + 1;
    this.log.info({ claimed: result.claimed, ...counts }, 'settlement batch');
    if (result.unapplied.length > 0) {
      this.log.warn(
        { depositIds: result.unapplied },
        'FX fills not applied: settled by a later claim, or no longer PENDING_FX',
      );
    }
    for (const { depositId, error } of result.deferred) {
      this.log.warn({ err: error, depositId }, 'FX order outcome unknown; placed again later');
    }
  }
}
