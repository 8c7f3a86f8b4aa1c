import type { WebSocket } from 'ws';
import type { Logger } from 'pino';
import type { Principal } from '../context/request-context';
import { DomainError, ErrorCode } from '../domain/errors';
import { AddressRateLimited, type AddressLimiter } from './address-limit';
import { WS_CLOSE } from './ws-sockets';

/** What a refused connection needs to be counted and closed as HTTP would answer it. */
export interface ConnectRefusalContext {
  socket: WebSocket;
  address: string;
  /** The key that authenticated before the refusal (none: it did not). */
  principal?: Principal;
  limiter?: AddressLimiter;
  /** Counts a key's 403 against its per-minute limit, as HTTP does (the answer stays 4403). */
  countRefusal?: (principal: Principal) => Promise<unknown>;
  log: Pick<Logger, 'error'>;
}

/**
 * Closes a websocket whose connection_init was refused, with the close code its refusal maps
 * to, after counting it where HTTP would: a failed credential against the address, a 403
 * against the key. Always false: the connection is not acknowledged.
 */
export async function closeRefusedConnection(
  error: unknown,
  ctx: ConnectRefusalContext,
): Promise<false> {
  const { socket } = ctx;
  if (error instanceof AddressRateLimited) {
    socket.close(WS_CLOSE.addressRefused, error.message);
    return false;
  }
  const code = error instanceof DomainError ? error.code : undefined;
  if (
    code === ErrorCode.IpNotAllowed ||
    code === ErrorCode.OriginNotAllowed ||
    code === ErrorCode.Forbidden
  ) {
    if (ctx.principal) await ctx.countRefusal?.(ctx.principal);
    const close =
      code === ErrorCode.IpNotAllowed ? WS_CLOSE.addressNotAllowed : WS_CLOSE.originRefused;
    socket.close(close, `Forbidden: ${(error as DomainError).message}`);
    return false;
  }
  if (code === ErrorCode.Unauthorized) {
    // Counted like a failed authentication over HTTP; the one past the limit says so.
    const refusal = await ctx.limiter?.countFailure(ctx.address).catch(() => null);
    if (refusal) socket.close(WS_CLOSE.addressRefused, refusal.message);
    else socket.close(WS_CLOSE.revoked, `Unauthorized: ${(error as DomainError).message}`);
    return false;
  }
  ctx.log.error({ err: error }, 'websocket authentication failed unexpectedly');
  socket.close(1011, 'Service unavailable');
  return false;
}
