import type { WebSocket } from 'ws';

/** How long a socket we close may take to answer the close frame before it is cut. */
export const CLOSE_GRACE_MS = 2_000;

/** A close frame's reason may be at most 123 bytes of UTF-8; longer ones are cut at a character. */
export function closeReason(reason: string): string {
  if (Buffer.byteLength(reason) <= 123) return reason;
  let cut = '';
  for (const char of reason) {
    if (Buffer.byteLength(cut + char) > 123) break;
    cut += char;
  }
  return cut;
}

/**
 * graphql-ws quotes client-chosen text in some close reasons ("Subscriber for <id> already
 * exists"): a long id made `ws` throw, and the socket closed 4500. Every close on the socket
 * goes through the bound.
 */
export function boundCloseReasons(socket: WebSocket): void {
  const close = socket.close.bind(socket);
  socket.close = (code?: number, reason?: string | Buffer) =>
    close(code, typeof reason === 'string' ? closeReason(reason) : reason);
}

/**
 * Closes with a code the client can read, then cuts the connection if it does not answer: a
 * client that stopped reading never sees the close frame, and ws would wait 30 s for it.
 */
export function closeThenTerminate(socket: WebSocket, code: number, reason: string): void {
  if (socket.readyState === socket.CLOSED) return;
  socket.close(code, reason);
  setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
}
