/**
 * One item's result from a batch: its value, or the error that fails only its own caller. A
 * value may still be a promise: the item settles when it does, but its batch is over at once
 * (a batch that falls back to writing each item alone does not hold its slot meanwhile).
 */
export type Settled<O> = { value: O | PromiseLike<O> } | { error: unknown };

export interface BatcherOptions<I, O> {
  /**
   * Runs one batch (items in the order they were submitted, all of one key) and returns one
   * result per item, in the same order. Throwing fails every item of the batch with the error.
   */
  run: (items: I[], key: string) => Promise<Array<Settled<O>>>;
  /** Most items in one batch; more wait for the next. Default: no limit. */
  maxBatch?: number;
  /** Batches of one key running at once. Default: one. */
  maxInFlight?: number;
  /**
   * Start a batch on the next turn of the event loop rather than at once, so the items that
   * arrive together (many attempts answered at the same moment) share it. Default: at once,
   * which costs an item that arrives alone no wait at all.
   */
  gatherOneTurn?: boolean;
}

interface Waiting<I, O> {
  item: I;
  resolve: (value: O | PromiseLike<O>) => void;
  reject: (error: unknown) => void;
}

/** One key's queue: the items waiting, the batches running, and a start planned or not. */
interface Lane<I, O> {
  queue: Array<Waiting<I, O>>;
  running: number;
  scheduled: boolean;
}

/**
 * Coalesces work that arrives one item at a time into batches, per key: at most `maxInFlight`
 * batches of a key run at once, and the items submitted meanwhile wait and go together in the
 * next one (at most `maxBatch`). A single statement (or one transaction) per batch instead of
 * one per item is what lets a hot row, a pooled connection or a lock serve many callers; each
 * caller still gets its own result or its own error.
 *
 * A new batch starts when an item arrives or a batch of its key ends, so the next batch is
 * already running before the callers of the last one resume.
 */
export class Batcher<I, O> {
  private readonly lanes = new Map<string, Lane<I, O>>();
  private readonly maxBatch: number;
  private readonly maxInFlight: number;

  constructor(private readonly options: BatcherOptions<I, O>) {
    this.maxBatch = options.maxBatch ?? Number.POSITIVE_INFINITY;
    this.maxInFlight = options.maxInFlight ?? 1;
    if (!(this.maxBatch >= 1) || !(this.maxInFlight >= 1)) {
      throw new RangeError('a batcher needs maxBatch and maxInFlight of at least 1');
    }
  }

  /** Adds `item` to its key's next batch; resolves with its own result. */
  submit(item: I, key = ''): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      let lane = this.lanes.get(key);
      if (!lane) {
        lane = { queue: [], running: 0, scheduled: false };
        this.lanes.set(key, lane);
      }
      lane.queue.push({ item, resolve, reject });
      this.pump(key, lane);
    });
  }

  private pump(key: string, lane: Lane<I, O>): void {
    if (lane.queue.length === 0) {
      // Nothing waits: forget an idle key (rate-limit keys name a minute and never return).
      if (lane.running === 0 && !lane.scheduled) this.lanes.delete(key);
      return;
    }
    if (lane.scheduled || lane.running >= this.maxInFlight) return;
    if (!this.options.gatherOneTurn) {
      void this.runBatch(key, lane);
      return;
    }
    lane.scheduled = true;
    setImmediate(() => {
      lane.scheduled = false;
      void this.runBatch(key, lane);
    });
  }

  /** Takes the next batch off the queue, runs it and settles each of its items. */
  private async runBatch(key: string, lane: Lane<I, O>): Promise<void> {
    const batch = lane.queue.splice(0, this.maxBatch);
    if (batch.length === 0) return this.pump(key, lane);
    lane.running += 1;
    let results: Array<Settled<O>>;
    try {
      results = await this.options.run(
        batch.map((w) => w.item),
        key,
      );
    } catch (error) {
      results = batch.map(() => ({ error }));
    }
    lane.running -= 1;
    this.pump(key, lane);
    batch.forEach((waiting, i) => {
      const result = results[i] ?? { error: new Error('the batch gave this item no result') };
      if ('value' in result) waiting.resolve(result.value);
      else waiting.reject(result.error);
    });
  }
}
