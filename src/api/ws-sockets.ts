import type { WebSocket } from 'ws';
import type { Clock } from '../clock';
import type { Principal } from '../context/request-context';

/** Close codes of the websocket's credential checks (graphql-ws uses 44xx for its own too). */
export const WS_CLOSE = {
  /** The key was revoked, or the dashboard session ended or expired. */
  revoked: 4401,
  /** The client secret was revoked or expired. */
  clientSecretRevoked: 4403,
  /** The key may not be used from the client's address (HTTP's 403 `ip_not_allowed`). */
  addressNotAllowed: 4403,
  /** A page of another site: a client secret from outside `allowed_origins`, or a secret key. */
  originRefused: 4403,
  /** Too many sockets open for one credential on this gateway. */
  tooManySockets: 4429,
  /** The client's address is past its limit of failed authentications (as HTTP's 429). */
  addressRefused: 4429,
} as const;

/** One authenticated socket, and what it must be closed for. */
export interface OpenSocket {
  socket: WebSocket;
  principal: Principal;
  /** The dashboard session the socket was opened with (`dashboard_sessions.token_hash`). */
  sessionId?: string;
  /** The hash of the client secret it presented (`onramps.client_secret_hash`). */
  clientSecretHash?: string;
  /** When the credential stops being valid (a dashboard session's end, a client secret's). */
  expiresAt?: Date;
  /** graphql-ws's live subscriptions of this socket (its `ctx.subscriptions`). */
  subscriptions: () => number;
  /** Closes with a code and reason the client can read (then cuts it if it does not answer). */
  close: (code: number, reason: string) => void;
}

export interface SocketCaps {
  socketsPerCredential: number;
  subscriptionsPerSocket: number;
  subscriptionsPerCredential: number;
}

/**
 * How long an ended key or session is remembered: a socket whose credential was read just
 * before the notice came, and registered just after, is closed on registration.
 */
const REMEMBER_ENDED_MS = 60_000;

/** setTimeout's longest delay (about 24.8 days); a later expiry re-arms when it fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The authenticated sockets of this gateway process, indexed by the credentials that can end
 * them: an API key (its own sockets and those of dashboard sessions opened with it), a
 * dashboard session, an onramp's client secret. Caps are counted here too, so they are per
 * gateway process: a client spread over N gateways may hold N times as much.
 */
export class SocketRegistry {
  private readonly byKey = new Map<string, Set<OpenSocket>>();
  private readonly bySession = new Map<string, Set<OpenSocket>>();
  private readonly byOnramp = new Map<string, Set<OpenSocket>>();
  private readonly expiryTimers = new Map<OpenSocket, NodeJS.Timeout>();
  /** `key:<id>` / `session:<id>` of credentials that ended lately, and when (clock ms). */
  private readonly recentlyEnded = new Map<string, number>();

  constructor(
    private readonly caps: SocketCaps,
    private readonly clock: Clock,
  ) {}

  /** The sockets a credential's cap counts together: a key's (sessions included), an onramp's. */
  private credentialSockets(principal: Principal): Set<OpenSocket> | undefined {
    return principal.kind === 'secret_key'
      ? this.byKey.get(principal.keyId)
      : this.byOnramp.get(principal.onrampId);
  }

  /** Why this principal may not open one more socket, or undefined when it may. */
  refuseSocket(principal: Principal): string | undefined {
    const open = this.credentialSockets(principal)?.size ?? 0;
    if (open < this.caps.socketsPerCredential) return undefined;
    const whose = principal.kind === 'secret_key' ? 'this API key' : "this onramp's client secret";
    return `Too many sockets: ${whose} already has ${open} open (limit ${this.caps.socketsPerCredential})`;
  }

  /**
   * Why this socket may not start one more subscription, or undefined when it may. The one
   * being started is already in the socket's count (graphql-ws adds it before onSubscribe).
   */
  refuseSubscription(entry: OpenSocket): string | undefined {
    const onSocket = entry.subscriptions();
    if (onSocket > this.caps.subscriptionsPerSocket) {
      return `Too many subscriptions on this socket (limit ${this.caps.subscriptionsPerSocket}); complete one first`;
    }
    let total = 0;
    for (const other of this.credentialSockets(entry.principal) ?? []) {
      total += other.subscriptions();
    }
    if (total > this.caps.subscriptionsPerCredential) {
      return `Too many subscriptions for this credential (limit ${this.caps.subscriptionsPerCredential}); complete one first`;
    }
    return undefined;
  }

  add(entry: OpenSocket): void {
    const { principal } = entry;
    if (principal.kind === 'secret_key') addTo(this.byKey, principal.keyId, entry);
    else addTo(this.byOnramp, principal.onrampId, entry);
    if (entry.sessionId) addTo(this.bySession, entry.sessionId, entry);
    if (entry.expiresAt) this.armExpiry(entry);
    // Keys and sessions never come back once ended (a client secret's onramp might get a new
    // one, so it is not remembered).
    if (principal.kind === 'secret_key' && this.recentlyEnded.has(`key:${principal.keyId}`)) {
      entry.close(WS_CLOSE.revoked, 'Unauthorized: API key revoked');
    } else if (entry.sessionId && this.recentlyEnded.has(`session:${entry.sessionId}`)) {
      entry.close(WS_CLOSE.revoked, 'Unauthorized: dashboard session ended');
    }
  }

  remove(entry: OpenSocket): void {
    const { principal } = entry;
    if (principal.kind === 'secret_key') removeFrom(this.byKey, principal.keyId, entry);
    else removeFrom(this.byOnramp, principal.onrampId, entry);
    if (entry.sessionId) removeFrom(this.bySession, entry.sessionId, entry);
    clearTimeout(this.expiryTimers.get(entry));
    this.expiryTimers.delete(entry);
  }

  /** An API key was revoked: its sockets and its dashboard sessions' sockets close. */
  keyRevoked(keyId: string): number {
    this.remember(`key:${keyId}`);
    return closeAll(this.byKey.get(keyId), WS_CLOSE.revoked, 'Unauthorized: API key revoked');
  }

  sessionEnded(sessionId: string): number {
    this.remember(`session:${sessionId}`);
    return closeAll(
      this.bySession.get(sessionId),
      WS_CLOSE.revoked,
      'Unauthorized: dashboard session ended',
    );
  }

  clientSecretRevoked(onrampId: string): number {
    return closeAll(
      this.byOnramp.get(onrampId),
      WS_CLOSE.clientSecretRevoked,
      'Forbidden: client secret revoked',
    );
  }

  /** Every key, session and client-secret hash with an open socket (for the periodic re-check). */
  credentials(): { keyIds: string[]; sessionIds: string[]; clientSecretHashes: string[] } {
    const hashes = new Set<string>();
    for (const sockets of this.byOnramp.values()) {
      for (const entry of sockets) if (entry.clientSecretHash) hashes.add(entry.clientSecretHash);
    }
    return {
      keyIds: [...this.byKey.keys()],
      sessionIds: [...this.bySession.keys()],
      clientSecretHashes: [...hashes],
    };
  }

  /** Closes the client-secret sockets that presented one of these (no longer valid) secrets. */
  clientSecretsGone(hashes: Set<string>): number {
    const gone = [...this.byOnramp.values()].flatMap((sockets) =>
      [...sockets].filter((e) => e.clientSecretHash && hashes.has(e.clientSecretHash)),
    );
    return closeAll(gone, WS_CLOSE.clientSecretRevoked, 'Forbidden: client secret revoked');
  }

  /** Stops the expiry timers (the sockets themselves are closed by the websocket server). */
  clear(): void {
    for (const timer of this.expiryTimers.values()) clearTimeout(timer);
    this.expiryTimers.clear();
    this.recentlyEnded.clear();
  }

  private remember(credential: string): void {
    const now = this.clock.now().getTime();
    for (const [id, at] of this.recentlyEnded) {
      if (now - at <= REMEMBER_ENDED_MS) break; // oldest first: the rest are newer
      this.recentlyEnded.delete(id);
    }
    this.recentlyEnded.delete(credential);
    this.recentlyEnded.set(credential, now);
  }

  /** Closes the socket when its credential expires, by the injected clock. */
  private armExpiry(entry: OpenSocket): void {
    const left = entry.expiresAt!.getTime() - this.clock.now().getTime();
    const timer = setTimeout(
      () => {
        if (entry.expiresAt!.getTime() > this.clock.now().getTime()) return this.armExpiry(entry);
        this.expiryTimers.delete(entry);
        if (entry.principal.kind === 'secret_key') {
          entry.close(WS_CLOSE.revoked, 'Unauthorized: dashboard session expired');
        } else {
          entry.close(WS_CLOSE.clientSecretRevoked, 'Forbidden: client secret expired');
        }
      },
      Math.min(Math.max(left, 0), MAX_TIMER_MS),
    );
    timer.unref();
    this.expiryTimers.set(entry, timer);
  }
}

function addTo(index: Map<string, Set<OpenSocket>>, id: string, entry: OpenSocket): void {
  let sockets = index.get(id);
  if (!sockets) index.set(id, (sockets = new Set()));
  sockets.add(entry);
}

function removeFrom(index: Map<string, Set<OpenSocket>>, id: string, entry: OpenSocket): void {
  const sockets = index.get(id);
  if (!sockets) return;
  sockets.delete(entry);
  if (sockets.size === 0) index.delete(id);
}

/** Closes a copy of the set: closing removes entries from it (through the close handler). */
function closeAll(sockets: Iterable<OpenSocket> | undefined, code: number, reason: string): number {
  const list = [...(sockets ?? [])];
  for (const entry of list) entry.close(code, reason);
  return list.length;
}
