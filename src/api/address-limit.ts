import { hash } from 'node:crypto';
import type { Clock } from '../clock';
import { DomainError, ErrorCode } from '../domain/errors';
import type { PostgresRateLimitStore } from './rate-limit';

/** How long a credential that authenticated stays known here (it still authenticates each time). */
const KNOWN_CREDENTIAL_MS = 10 * 60_000;
/** Bounded memory: the oldest entries go first. */
const MAX_KNOWN_CREDENTIALS = 10_000;
const MAX_REFUSED_ADDRESSES = 100_000;

export class AddressRateLimited extends DomainError {
  constructor(
    readonly limit: number,
    readonly retryAfterSeconds: number,
  ) {
    super(
      ErrorCode.RateLimited,
      `Too many unauthenticated requests from this address (limit ${limit} per minute); ` +
        `retry in ${retryAfterSeconds} seconds`,
    );
  }
}

/**
 * The per-address limit on what a request can reach without a valid credential: failed
 * authentications (bad keys, sessions, operator tokens, bank signatures) are counted per
 * client address in the shared store (bucket `ip:<address>`, every gateway adds to the same
 * count). Past the limit the address is refused until the window ends, and the refusal is
 * decided from this gateway's memory, before any key lookup: a flood of bad keys costs the
 * database nothing once refused. Only credentials that authenticated here recently still get
 * through from a refused address (a merchant behind the same NAT as an attacker keeps working).
 */
export class AddressLimiter {
  /** Address -> end of the window it is refused in (epoch ms). */
  private readonly refusedUntil = new Map<string, number>();
  /** Digest of a credential -> when it last authenticated (epoch ms). */
  private readonly known = new Map<string, number>();

  constructor(
    private readonly store: PostgresRateLimitStore,
    private readonly clock: Clock,
    readonly perMinute: number,
  ) {}

  /** Throws 429 when the address is refused, unless the credential authenticated here lately. */
  assertNotRefused(address: string, credential?: string): void {
    const until = this.refusedUntil.get(address);
    if (until === undefined) return;
    const now = this.clock.now().getTime();
    if (now >= until) {
      this.refusedUntil.delete(address);
      return;
    }
    if (credential && this.isKnown(credential, now)) return;
    throw new AddressRateLimited(this.perMinute, Math.max(1, Math.ceil((until - now) / 1000)));
  }

  /**
   * Counts one failed authentication of the address. Resolves to the refusal to answer instead
   * when this one went past the limit, or null.
   */
  async countFailure(address: string): Promise<AddressRateLimited | null> {
    const { current, ttl } = await new Promise<{ current: number; ttl: number }>(
      (resolve, reject) =>
        this.store.incr(`ip:${address}`, (error, result) =>
          error || !result ? reject(error ?? new Error('no count')) : resolve(result),
        ),
    );
    if (current <= this.perMinute) return null;
    if (this.refusedUntil.size >= MAX_REFUSED_ADDRESSES) this.dropOldest(this.refusedUntil);
    this.refusedUntil.set(address, this.clock.now().getTime() + ttl);
    return new AddressRateLimited(this.perMinute, Math.max(1, Math.ceil(ttl / 1000)));
  }

  /** Remembers a credential that just authenticated. */
  remember(credential: string): void {
    const digest = this.digest(credential);
    this.known.delete(digest); // re-inserted last: the map stays oldest-first
    if (this.known.size >= MAX_KNOWN_CREDENTIALS) this.dropOldest(this.known);
    this.known.set(digest, this.clock.now().getTime());
  }

  private isKnown(credential: string, now: number): boolean {
    const seen = this.known.get(this.digest(credential));
    return seen !== undefined && now - seen < KNOWN_CREDENTIAL_MS;
  }

  private digest(credential: string): string {
    return hash('sha256', credential, 'base64');
  }

  private dropOldest(map: Map<string, number>): void {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
}
