/** An API key row as the auth lookup reads it (`API_KEY_SQL`). */
export interface ApiKeyRow {
  id: string;
  merchant_id: string;
  environment: string;
  revoked_at: string | null;
  scopes: string[];
  allowed_ips: string[] | null;
}

export interface ApiKeyCacheOptions {
  /** How long an entry may be served, counted from when its row was read. 0: never cache. */
  ttlMs: number;
  /** Most entries kept; past it the least recently used goes. */
  maxEntries: number;
  /** Monotonic milliseconds (real time, not the injected clock: this bounds real staleness). */
  now?: () => number;
}

interface Entry {
  row: ApiKeyRow;
  /** When the lookup that read the row started. */
  readAt: number;
}

/**
 * A short-lived in-memory copy of live API key lookups (key hash -> row), so most requests of
 * a busy key need no round trip. Safe only while told about every revocation:
 *
 * - `listening(true)` once this process LISTENs on the revocation channel, `listening(false)`
 *   as soon as that connection drops: meanwhile nothing is cached or served (every request
 *   reads the database), since a revocation notice could be missed.
 * - `revoked(keyId)` on each notice drops the key's entry at once.
 * - An entry lives `ttlMs` from the moment its row was read, so even a notice lost without
 *   the connection noticing (a silent network failure) keeps a revoked key alive no longer.
 * - A lookup that started before a notice (or a reconnection) must not store what it read: it
 *   may predate the revocation. `generation()` is taken before the read and `store` refuses a
 *   row read in an older generation.
 *
 * Only live keys are stored: unknown and revoked ones are not (so unknown keys sent by anyone
 * cannot fill memory; they cost a lookup each, as before, and count against the address).
 */
export class ApiKeyCache {
  /** Insertion order is recency order: a hit is moved to the end, the first is the oldest. */
  private readonly entries = new Map<string, Entry>();
  private readonly hashByKeyId = new Map<string, string>();
  private live = false;
  private epoch = 0;
  private readonly now: () => number;

  constructor(private readonly options: ApiKeyCacheOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  /** Whether entries may be stored and served (the revocation listener is connected). */
  get active(): boolean {
    return this.live && this.options.ttlMs > 0;
  }

  get size(): number {
    return this.entries.size;
  }

  listening(live: boolean): void {
    this.live = live;
    this.clear();
  }

  revoked(keyId: string): void {
    this.epoch += 1;
    const hash = this.hashByKeyId.get(keyId);
    if (hash !== undefined) this.delete(hash);
  }

  clear(): void {
    this.epoch += 1;
    this.entries.clear();
    this.hashByKeyId.clear();
  }

  /** Taken just before a lookup; handed back to `store` with its result. */
  generation(): { epoch: number; at: number } {
    return { epoch: this.epoch, at: this.now() };
  }

  get(keyHash: string): ApiKeyRow | undefined {
    if (!this.active) return undefined;
    const entry = this.entries.get(keyHash);
    if (entry === undefined) return undefined;
    if (this.now() - entry.readAt >= this.options.ttlMs) {
      this.delete(keyHash);
      return undefined;
    }
    this.entries.delete(keyHash);
    this.entries.set(keyHash, entry);
    return entry.row;
  }

  store(keyHash: string, row: ApiKeyRow, since: { epoch: number; at: number }): void {
    if (!this.active || since.epoch !== this.epoch || row.revoked_at !== null) return;
    this.delete(keyHash);
    if (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.delete(oldest.value);
    }
    this.entries.set(keyHash, { row, readAt: since.at });
    this.hashByKeyId.set(row.id, keyHash);
  }

  private delete(keyHash: string): void {
    const entry = this.entries.get(keyHash);
    if (entry === undefined) return;
    this.entries.delete(keyHash);
    if (this.hashByKeyId.get(entry.row.id) === keyHash) this.hashByKeyId.delete(entry.row.id);
  }
}
