export interface SeenSeqsOptions {
  /** How long a seq below the highest seen may still turn up (a rolled-back one never does). */
  gapTtlMs: number;
  /** At most this many gaps are remembered (the oldest go first). */
  maxGaps: number;
  now: () => number;
}

/**
 * Which outbox seqs this gateway has already handled, in constant memory: the highest seq
 * seen, plus the seqs below it not seen yet ("gaps"). Seqs are taken when a transaction
 * inserts its event but become visible at commit, so a lower seq can arrive after a higher
 * one; a rolled-back transaction leaves a gap forever, hence the expiry.
 */
export class SeenSeqs {
  private highestSeen: number | undefined;
  /** seq -> expiry (ms). Gaps are only ever added above every existing one, so the map's
   * insertion order is both seq order and expiry order: pruning looks at the front only. */
  private gaps = new Map<number, number>();

  constructor(private readonly options: SeenSeqsOptions) {}

  /** False until the first catch-up placed us in the stream. */
  get positioned(): boolean {
    return this.highestSeen !== undefined;
  }

  get highest(): number | undefined {
    return this.highestSeen;
  }

  /** Not handled yet (without marking it). */
  isNew(seq: number): boolean {
    this.prune();
    if (this.highestSeen === undefined || seq > this.highestSeen) return true;
    return this.gaps.has(seq);
  }

  /** Marks a seq handled; true the first time only. */
  markSeen(seq: number): boolean {
    this.prune();
    if (this.highestSeen === undefined) {
      this.highestSeen = seq;
      return true;
    }
    if (seq > this.highestSeen) {
      const expiresAt = this.options.now() + this.options.gapTtlMs;
      const from = Math.max(this.highestSeen + 1, seq - this.options.maxGaps);
      for (let gap = from; gap < seq; gap += 1) this.gaps.set(gap, expiresAt);
      this.highestSeen = seq;
      this.prune();
      return true;
    }
    return this.gaps.delete(seq);
  }

  /**
   * After a catch-up read one snapshot: every seq up to `top` is handled except `missing`
   * (not visible in that snapshot: still uncommitted, or rolled back). Gaps above `top` (a
   * read cut short) stay as they are.
   */
  caughtUp(top: number, missing: number[]): void {
    this.prune();
    const expiresAt = this.options.now() + this.options.gapTtlMs;
    const stillMissing = new Set(missing);
    for (const seq of this.gaps.keys()) if (seq > top) stillMissing.add(seq);
    const gaps = new Map<number, number>();
    for (const seq of [...stillMissing].sort((a, b) => a - b)) {
      gaps.set(seq, this.gaps.get(seq) ?? expiresAt);
    }
    this.gaps = gaps;
    this.highestSeen = Math.max(this.highestSeen ?? top, top);
    this.prune();
  }

  /** The gaps still worth looking for, lowest first. */
  gapList(): number[] {
    this.prune();
    return [...this.gaps.keys()];
  }

  private prune(): void {
    const now = this.options.now();
    for (const [seq, expiresAt] of this.gaps) {
      if (expiresAt > now && this.gaps.size <= this.options.maxGaps) break;
      this.gaps.delete(seq);
    }
  }
}
