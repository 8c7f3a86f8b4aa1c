import type { IncomingHttpHeaders } from 'node:http';

export const SESSION_COOKIE = 'onramp_session';

/** The value of one cookie in a Cookie header (no decoding: our values are URL-safe). */
export function cookieValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const header = headers.cookie;
  if (typeof header !== 'string') return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** HttpOnly (scripts cannot read it) and SameSite=Strict (other sites cannot send it). */
export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${token}`,
    'HttpOnly',
    'SameSite=Strict',
    'Path=/',
    `Max-Age=${maxAgeSeconds}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', 0, secure);
}

/**
 * A request that names an Origin must come from this host: a page on another site cannot
 * open a dashboard session or a dashboard websocket here.
 */
export function sameOrigin(headers: IncomingHttpHeaders): boolean {
  const origin = headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === headers.host;
  } catch {
    return false;
  }
}
