/**
 * A least-recently-used map bounded twice: by entries and by the total of each entry's size
 * (what `sizeOf` says, e.g. the characters of a query text). Whoever fills it (a client sending
 * endless distinct documents) evicts old entries, never grows it.
 *
 * It also offers the asynchronous `get`/`set`/`delete` of Apollo's key-value caches
 * (`documentStore`, `persistedQueries.cache`), so Apollo's caches are bounded the same way.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, { value: V; size: number }>();
  private totalSize = 0;

  constructor(
    private readonly limits: { maxEntries: number; maxTotalSize: number; maxEntrySize: number },
    private readonly sizeOf: (value: V) => number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  peek(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Map order is insertion order: re-inserting marks it most recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Kept unless larger than `maxEntrySize` (checked every time instead, never kept). */
  put(key: string, value: V): void {
    const size = this.sizeOf(value);
    if (size > this.limits.maxEntrySize) return;
    this.remove(key);
    this.entries.set(key, { value, size });
    this.totalSize += size;
    while (
      this.entries.size > this.limits.maxEntries ||
      this.totalSize > this.limits.maxTotalSize
    ) {
      this.remove(this.entries.keys().next().value as string);
    }
  }

  remove(key: string): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    this.entries.delete(key);
    this.totalSize -= entry.size;
    return true;
  }

  // Apollo's KeyValueCache interface.
  async get(key: string): Promise<V | undefined> {
    return this.peek(key);
  }

  async set(key: string, value: V): Promise<void> {
    this.put(key, value);
  }

  async delete(key: string): Promise<boolean> {
    return this.remove(key);
  }
}
