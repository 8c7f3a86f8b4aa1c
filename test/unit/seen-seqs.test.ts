import { SeenSeqs } from '../../src/api/subscriptions/seen-seqs';

function tracker(maxGaps = 100) {
  let now = 0;
  const seen = new SeenSeqs({ gapTtlMs: 60_000, maxGaps, now: () => now });
  return { seen, advance: (ms: number) => (now += ms) };
}

describe('SeenSeqs (which outbox seqs a gateway already handled)', () => {
  it('counts each seq once, in any order; seqs skipped over become gaps', () => {
    const { seen } = tracker();
    seen.caughtUp(10, []);
    expect(seen.markSeen(11)).toBe(true);
    expect(seen.markSeen(11)).toBe(false);
    expect(seen.markSeen(14)).toBe(true);
    expect(seen.gapList()).toEqual([12, 13]);
    expect(seen.isNew(13)).toBe(true);
    expect(seen.markSeen(13)).toBe(true); // committed after 14
    expect(seen.markSeen(13)).toBe(false);
    expect(seen.gapList()).toEqual([12]);
    expect(seen.markSeen(9)).toBe(false); // before our start: not ours to send
    expect(seen.highest).toBe(14);
  });

  it('a gap expires (a rolled-back transaction never commits its seq)', () => {
    const { seen, advance } = tracker();
    seen.caughtUp(1, []);
    seen.markSeen(3);
    advance(59_000);
    expect(seen.gapList()).toEqual([2]);
    advance(1_000);
    expect(seen.gapList()).toEqual([]);
    expect(seen.markSeen(2)).toBe(false);
  });

  it('a catch-up marks everything up to its top seen except what it could not see yet', () => {
    const { seen, advance } = tracker();
    seen.caughtUp(5, []);
    seen.markSeen(8); // gaps 6, 7
    advance(30_000);
    // The catch-up saw 6 and everything to 20 except 7 and 15.
    seen.caughtUp(20, [7, 15]);
    expect(seen.gapList()).toEqual([7, 15]);
    expect(seen.isNew(6)).toBe(false);
    expect(seen.isNew(16)).toBe(false);
    expect(seen.highest).toBe(20);
    // 7 keeps its first expiry; 15 is new.
    advance(30_000);
    expect(seen.gapList()).toEqual([15]);
  });

  it('a catch-up cut short keeps the gaps above where it stopped', () => {
    const { seen } = tracker();
    seen.caughtUp(10, []);
    seen.markSeen(20); // gaps 11..19
    seen.caughtUp(12, [12]);
    expect(seen.gapList()).toEqual([12, 13, 14, 15, 16, 17, 18, 19]);
    expect(seen.highest).toBe(20);
  });

  it('remembers at most maxGaps gaps, dropping the oldest', () => {
    const { seen } = tracker(5);
    seen.caughtUp(0, []);
    seen.markSeen(1_000_000);
    expect(seen.gapList()).toEqual([999_995, 999_996, 999_997, 999_998, 999_999]);
  });
});
