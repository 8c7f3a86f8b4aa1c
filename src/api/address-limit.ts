import type { FastifyInstance } from 'fastify';
import { hash } from 'node:crypto';
import type { Clock } from '../clock';
import { DomainError, ErrorCode } from '../domain/errors';
import { addressBucket } from './address-bucket';
import type { PostgresRateLimitStore } from './rate-limit';
import { PROBE_PATHS } from './probes/probe-paths';

/** How long a credential that authenticated stays known here (it still authenticates each time). */
const KNOWN_CREDENTIAL_MS = 10 * 60_000;
/** Bounded memory: the oldest entries go first. */
const MAX_KNOWN_CREDENTIALS = 10_000;
const MAX_REFUSED_ADDRESSES = 100_000;

/**
 * Where a credential was presented. A credential known in one place is unknown in another: a
 * key that authenticated in the `Authorization` header does not make the same string in
 * `connectionParams` a known one. A credential read from a body, a signature or a URL (a
 * dashboard sign-in, a bank notification, a payer's link) has no place here: it is never known.
 */
export type CredentialPlace =
  'authorization' | 'connection_params' | 'session_cookie' | 'operator_token';

export interface PresentedCredential {
  place: CredentialPlace;
  credential: string;
}

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

/** A refused address's bucket: since when (the 101st failure) and until when (its window's end). */
interface Refusal {
  since: number;
  until: number;
}

/** A credential that authenticated from an address: first in an unbroken run of uses, and last. */
interface Known {
  since: number;
  last: number;
}

/**
 * The per-address limit on failed authentications (API.md, "Money leaves only where it
 * should"): every failed credential, wherever it was presented, is counted against its client
 * address's bucket (`addressBucket`: IPv6 per /64) in the shared store (`ip:<bucket>`, every
 * gateway adds to the same count). Past the limit the bucket is refused until the window ends,
 * decided from this gateway's memory before any lookup, so a flood costs the database nothing.
 *
 * Every place that looks a credential up first asks `assertNotRefused` with THAT credential.
 * One exemption: a credential that authenticated from this bucket, in this same place, before
 * the refusal began, and has kept being used since (gaps under 10 minutes), still passes: a
 * merchant behind the same NAT as an attacker keeps working. Nothing else passes: not a right
 * key the address never used (past the limit a guess is refused, right or wrong), not a
 * credential because another one in the same request is valid, not a sign-in.
 */
export class AddressLimiter {
  private readonly refused = new Map<string, Refusal>();
  /** Digest of bucket, place and credential -> its run of authentications (epoch ms). */
  private readonly known = new Map<string, Known>();

  constructor(
    private readonly store: PostgresRateLimitStore,
    private readonly clock: Clock,
    readonly perMinute: number,
  ) {}

  /** Throws 429 when the address is refused, unless `presented` is exempt (see the class). */
  assertNotRefused(address: string, presented?: PresentedCredential): void {
    if (this.refused.size === 0) return;
    const bucket = addressBucket(address);
    const refusal = this.refused.get(bucket);
    if (refusal === undefined) return;
    const now = this.clock.now().getTime();
    if (now >= refusal.until) {
      this.refused.delete(bucket);
      return;
    }
    if (presented && this.knownBefore(bucket, presented, refusal.since, now)) return;
    throw new AddressRateLimited(
      this.perMinute,
      Math.max(1, Math.ceil((refusal.until - now) / 1000)),
    );
  }

  /**
   * Counts one failed authentication of the address. Resolves to the refusal to answer instead
   * when this one went past the limit, or null.
   */
  async countFailure(address: string): Promise<AddressRateLimited | null> {
    const bucket = addressBucket(address);
    const { current, ttl } = await new Promise<{ current: number; ttl: number }>(
      (resolve, reject) =>
        this.store.incr(`ip:${bucket}`, (error, result) =>
          error || !result ? reject(error ?? new Error('no count')) : resolve(result),
        ),
    );
    if (current <= this.perMinute) return null;
    const now = this.clock.now().getTime();
    const running = this.refused.get(bucket);
    // A refusal already running keeps its start: what was known before it stays known.
    const since = running !== undefined && now < running.until ? running.since : now;
    this.refused.delete(bucket);
    if (this.refused.size >= MAX_REFUSED_ADDRESSES) this.dropOldest(this.refused);
    this.refused.set(bucket, { since, until: now + ttl });
    return new AddressRateLimited(this.perMinute, Math.max(1, Math.ceil(ttl / 1000)));
  }

  /** Remembers a credential that just authenticated from `address`, where it was presented. */
  remember(address: string, presented: PresentedCredential): void {
    const digest = this.digest(addressBucket(address), presented);
    const now = this.clock.now().getTime();
    const seen = this.known.get(digest);
    const since = seen !== undefined && now - seen.last < KNOWN_CREDENTIAL_MS ? seen.since : now;
    this.known.delete(digest); // re-inserted last: the map stays oldest-first
    if (this.known.size >= MAX_KNOWN_CREDENTIALS) this.dropOldest(this.known);
    this.known.set(digest, { since, last: now });
  }

  private knownBefore(
    bucket: string,
    presented: PresentedCredential,
    refusedSince: number,
    now: number,
  ): boolean {
    const seen = this.known.get(this.digest(bucket, presented));
    return seen !== undefined && seen.since < refusedSince && now - seen.last < KNOWN_CREDENTIAL_MS;
  }

  private digest(bucket: string, presented: PresentedCredential): string {
    return hash('sha256', `${bucket}\n${presented.place}\n${presented.credential}`, 'base64');
  }

  private dropOldest(map: Map<string, unknown>): void {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
}

/**
 * A public route reads its credential from the body or the URL after `onRequest` ran, maybe
 * long after (a slow body): the address is asked again just before the handler looks it up.
 */
export function recheckPublicRoutes(app: FastifyInstance, limiter: AddressLimiter): void {
  app.addHook('preHandler', (request, _reply, done) => {
    if (
      request.routeOptions.config?.public !== true ||
      PROBE_PATHS.has(request.routeOptions.url ?? '')
    ) {
      return done();
    }
    try {
      limiter.assertNotRefused(request.ip);
    } catch (error) {
      return done(error as Error);
    }
    done();
  });
}
