import { Batcher, type Settled } from '../../src/lib/batching';

/** A promise the test settles by hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A batcher whose batches the test finishes one at a time: `batches` records what each batch
 * held, `finish(i)` ends batch i (each item's result is its doubled value).
 */
function heldBatcher(options: { maxBatch?: number; maxInFlight?: number } = {}) {
  const batches: Array<{ key: string; items: number[] }> = [];
  const gates: Array<ReturnType<typeof deferred<void>>> = [];
  let running = 0;
  let mostRunning = 0;
  const batcher = new Batcher<number, number>({
    ...options,
    run: async (items, key) => {
      batches.push({ key, items });
      const gate = deferred<void>();
      gates.push(gate);
      running += 1;
      mostRunning = Math.max(mostRunning, running);
      await gate.promise;
      running -= 1;
      return items.map((n) => ({ value: n * 2 }));
    },
  });
  return {
    batcher,
    batches,
    finish: async (i: number) => {
      gates[i].resolve();
      await settle();
    },
    mostRunning: () => mostRunning,
  };
}

describe('Batcher: one shared way to coalesce work into batches', () => {
  it('runs a lone item at once, then everything that arrived meanwhile together, in order', async () => {
    const { batcher, batches, finish } = heldBatcher();
    const first = batcher.submit(1);
    expect(batches).toEqual([{ key: '', items: [1] }]); // no wait for a lone item
    const rest = [2, 3, 4].map((n) => batcher.submit(n));
    await settle();
    expect(batches).toHaveLength(1); // still one batch in flight
    await finish(0);
    expect(batches[1]).toEqual({ key: '', items: [2, 3, 4] });
    await finish(1);
    expect(await first).toBe(2);
    expect(await Promise.all(rest)).toEqual([4, 6, 8]);
  });

  it('starts the next batch before the callers of the last one resume', async () => {
    const { batcher, batches, finish } = heldBatcher();
    const seen: number[] = [];
    void batcher.submit(1).then(() => seen.push(batches.length));
    void batcher.submit(2);
    await finish(0);
    expect(seen).toEqual([2]);
    await finish(1);
  });

  it('keeps at most one batch in flight per key; keys do not wait for each other', async () => {
    const { batcher, batches, finish, mostRunning } = heldBatcher();
    const a = [batcher.submit(1, 'a'), batcher.submit(2, 'a'), batcher.submit(3, 'a')];
    const b = batcher.submit(10, 'b');
    await settle();
    expect(batches).toEqual([
      { key: 'a', items: [1] },
      { key: 'b', items: [10] },
    ]);
    await finish(0);
    expect(batches[2]).toEqual({ key: 'a', items: [2, 3] });
    await finish(1);
    await finish(2);
    expect(await Promise.all([...a, b])).toEqual([2, 4, 6, 20]);
    expect(mostRunning()).toBe(2); // one per key
  });

  it('runs up to maxInFlight batches of one key side by side', async () => {
    const { batcher, batches, finish, mostRunning } = heldBatcher({ maxInFlight: 2 });
    const all = [1, 2, 3].map((n) => batcher.submit(n));
    await settle();
    expect(batches.map((b) => b.items)).toEqual([[1], [2]]);
    await finish(0);
    expect(batches.map((b) => b.items)).toEqual([[1], [2], [3]]);
    await finish(1);
    await finish(2);
    expect(await Promise.all(all)).toEqual([2, 4, 6]);
    expect(mostRunning()).toBe(2);
  });

  it('puts at most maxBatch items in a batch; the rest wait for the next', async () => {
    const { batcher, batches, finish } = heldBatcher({ maxBatch: 3 });
    const all = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => batcher.submit(n));
    for (let i = 0; i < 4; i += 1) await finish(i);
    expect(batches.map((b) => b.items)).toEqual([[1], [2, 3, 4], [5, 6, 7], [8]]);
    expect(await Promise.all(all)).toEqual([2, 4, 6, 8, 10, 12, 14, 16]);
  });

  it("fails only the item whose result is an error, and a thrown batch fails only that batch's items", async () => {
    let calls = 0;
    const batcher = new Batcher<number, number>({
      run: async (items) => {
        calls += 1;
        if (items.includes(99)) throw new Error('the whole batch failed');
        return items.map((n): Settled<number> =>
          n < 0 ? { error: new Error(`bad ${n}`) } : { value: n },
        );
      },
    });
    const lone = batcher.submit(1);
    const mixed = [batcher.submit(2), batcher.submit(-3), batcher.submit(4)];
    expect(await lone).toBe(1);
    const results = await Promise.allSettled(mixed);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('bad -3'));

    const failing = batcher.submit(99);
    await expect(failing).rejects.toThrow('the whole batch failed');
    // The batcher goes on after a failed batch.
    expect(await batcher.submit(5)).toBe(5);
    expect(calls).toBe(4);
  });

  it('fails an item its batch gave no result', async () => {
    const batcher = new Batcher<number, number>({ run: async () => [] });
    await expect(batcher.submit(1)).rejects.toThrow('the batch gave this item no result');
  });

  it('with gatherOneTurn, items submitted in the same turn share one batch', async () => {
    const batches: number[][] = [];
    const batcher = new Batcher<number, number>({
      gatherOneTurn: true,
      maxBatch: 4,
      run: async (items) => {
        batches.push(items);
        return items.map((value) => ({ value }));
      },
    });
    const all = [1, 2, 3, 4, 5, 6].map((n) => batcher.submit(n));
    expect(batches).toEqual([]); // nothing before the next turn
    expect(await Promise.all(all)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(batches).toEqual([
      [1, 2, 3, 4],
      [5, 6],
    ]);
  });

  it('a result that is a promise frees the batch at once and settles its item later', async () => {
    const later = deferred<number>();
    const batches: number[][] = [];
    const batcher = new Batcher<number, number>({
      run: async (items) => {
        batches.push(items);
        return items.map((n) => ({ value: n === 1 ? later.promise : n }));
      },
    });
    let firstDone = false;
    const first = batcher.submit(1).then((v) => {
      firstDone = true;
      return v;
    });
    await settle();
    expect(await batcher.submit(2)).toBe(2); // ran although item 1 has not settled
    expect(firstDone).toBe(false);
    later.resolve(10);
    expect(await first).toBe(10);
    expect(batches).toEqual([[1], [2]]);
  });

  it('refuses a batch size or concurrency below one', () => {
    expect(() => new Batcher({ maxBatch: 0, run: async () => [] })).toThrow(RangeError);
    expect(() => new Batcher({ maxInFlight: 0, run: async () => [] })).toThrow(RangeError);
  });
});
