import type { WebSocket } from 'ws';
import { ManualClock } from '../../src/clock';
import type { Principal } from '../../src/merchants/auth.service';
import { SocketRegistry, WS_CLOSE, type OpenSocket } from '../../src/api/ws-sockets';
import { CREDENTIAL_REVOKED } from '../../src/events/channels';

const key = (keyId: string): Principal => ({
  kind: 'secret_key',
  merchantId: 'm_1',
  keyId,
  scopes: ['all'],
});
const secret = (onrampId: string): Principal => ({
  kind: 'client_secret',
  merchantId: 'm_1',
  onrampId,
});

type TrackedSocket = OpenSocket & { closes: Array<[number, string]>; subs: number };

/** A tracked socket that records how it was closed (and leaves the registry, as ws.ts does). */
function fakeSocket(
  registry: SocketRegistry,
  principal: Principal,
  extra: Partial<OpenSocket> = {},
): TrackedSocket {
  const entry: TrackedSocket = {
    socket: {} as WebSocket,
    principal,
    subs: 0,
    closes: [] as Array<[number, string]>,
    subscriptions: () => entry.subs,
    close: (code: number, reason: string) => {
      entry.closes.push([code, reason]);
      registry.remove(entry);
    },
    ...extra,
  };
  registry.add(entry);
  return entry;
}

describe('SocketRegistry', () => {
  const caps = {
    socketsPerCredential: 2,
    subscriptionsPerSocket: 2,
    subscriptionsPerCredential: 3,
  };

  it("a revoked key closes its own sockets and its dashboard sessions'; nothing else", () => {
    const registry = new SocketRegistry(caps, new ManualClock());
    const own = fakeSocket(registry, key('key_a'));
    const session = fakeSocket(registry, key('key_a'), { sessionId: 'hash_1' });
    const other = fakeSocket(registry, key('key_b'));
    expect(registry.keyRevoked('key_a')).toBe(2);
    expect(own.closes).toEqual([[WS_CLOSE.revoked, 'Unauthorized: API key revoked']]);
    expect(session.closes).toEqual([[WS_CLOSE.revoked, 'Unauthorized: API key revoked']]);
    expect(other.closes).toEqual([]);
    expect(registry.credentials()).toEqual({
      keyIds: ['key_b'],
      sessionIds: [],
      clientSecretHashes: [],
    });
  });

  it('a socket registered just after its key or session ended is closed at once', () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z');
    const registry = new SocketRegistry(caps, clock);
    registry.keyRevoked('key_gone');
    registry.sessionEnded('hash_gone');
    const late = fakeSocket(registry, key('key_gone'));
    const lateSession = fakeSocket(registry, key('key_live'), { sessionId: 'hash_gone' });
    expect(late.closes).toEqual([[4401, 'Unauthorized: API key revoked']]);
    expect(lateSession.closes).toEqual([[4401, 'Unauthorized: dashboard session ended']]);
    expect(fakeSocket(registry, key('key_live')).closes).toEqual([]);
    // Forgotten after a minute (by then the key could not authenticate anyway).
    clock.advance(61_000);
    registry.keyRevoked('key_other');
    expect(fakeSocket(registry, key('key_gone')).closes).toEqual([]);
  });

  it('closes at the expiry by the injected clock: 4401 for a session, 4403 for a client secret', () => {
    jest.useFakeTimers();
    try {
      const clock = new ManualClock('2026-01-01T00:00:00Z');
      const registry = new SocketRegistry(caps, clock);
      const session = fakeSocket(registry, key('key_a'), {
        sessionId: 'hash_1',
        expiresAt: new Date('2026-01-01T00:00:10Z'),
      });
      const client = fakeSocket(registry, secret('onr_1'), {
        clientSecretHash: 'h',
        expiresAt: new Date('2026-01-01T00:00:20Z'),
      });
      // The timer fires, but the injected clock says not yet: nothing closes, it re-arms.
      jest.advanceTimersByTime(10_000);
      expect(session.closes).toEqual([]);
      clock.advance(10_000);
      jest.advanceTimersByTime(10_000);
      expect(session.closes).toEqual([[4401, 'Unauthorized: dashboard session expired']]);
      expect(client.closes).toEqual([]);
      clock.advance(10_000);
      jest.advanceTimersByTime(10_000);
      expect(client.closes).toEqual([[4403, 'Forbidden: client secret expired']]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('caps sockets per credential and subscriptions per socket and per credential', () => {
    const registry = new SocketRegistry(caps, new ManualClock());
    const a = fakeSocket(registry, key('key_a'));
    const b = fakeSocket(registry, key('key_a'));
    expect(registry.refuseSocket(key('key_a'))).toBe(
      'Too many sockets: this API key already has 2 open (limit 2)',
    );
    expect(registry.refuseSocket(key('key_b'))).toBeUndefined();
    fakeSocket(registry, secret('onr_1'));
    fakeSocket(registry, secret('onr_1'));
    expect(registry.refuseSocket(secret('onr_1'))).toMatch(/client secret already has 2 open/);
    // Counts include the subscription being started.
    a.subs = 3;
    expect(registry.refuseSubscription(a)).toMatch(/on this socket \(limit 2\)/);
    a.subs = 2;
    b.subs = 2;
    expect(registry.refuseSubscription(b)).toMatch(/for this credential \(limit 3\)/);
    b.subs = 1;
    expect(registry.refuseSubscription(b)).toBeUndefined();
    registry.remove(b);
    expect(registry.refuseSocket(key('key_a'))).toBeUndefined();
  });

  it('reads revocation notices strictly', () => {
    expect(CREDENTIAL_REVOKED.parse('{"kind":"api_key","id":"key_1"}')).toEqual({
      kind: 'api_key',
      id: 'key_1',
    });
    for (const bad of ['', 'null', '[]', '{"kind":"api_key"}', '{"kind":"x","id":"1"}', '{']) {
      expect(CREDENTIAL_REVOKED.parse(bad)).toBeNull();
    }
  });
});
