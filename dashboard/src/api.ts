// Same-origin calls: the session endpoints and GraphQL over HTTP. The session cookie travels on
// its own (HttpOnly); every GraphQL request also carries the CSRF token from the session body.

export type Environment = 'sandbox' | 'production' | string;

export interface Session {
  csrf_token: string;
  merchant: { id: string; name: string; environment: Environment };
  /** The signed-in key's scopes (`all`, or a restricted key's). */
  scopes?: string[];
}

/** An error the server explained (REST error body or a GraphQL error). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

let csrfToken: string | null = null;
let unauthorizedHandler: (() => void) | null = null;
/** Server clock minus browser clock, in ms, from the Date header (0 while unknown or close). */
let serverOffsetMs = 0;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

export function getCsrfToken(): string | null {
  return csrfToken;
}

/** Called when a signed-in request comes back 401 (session expired or revoked elsewhere). */
export function onUnauthorized(handler: () => void): void {
  unauthorizedHandler = handler;
}

/** The browser's clock corrected to the server's (countdowns against server timestamps). */
export function serverNow(): number {
  return new Date().getTime() + serverOffsetMs;
}

function noteServerDate(response: Response): void {
  const header = response.headers.get('date');
  if (!header) return;
  const server = Date.parse(header);
  if (Number.isNaN(server)) return;
  // The header has whole seconds: only correct clearly wrong clocks.
  const offset = server - new Date().getTime();
  serverOffsetMs = Math.abs(offset) > 5_000 ? offset : 0;
}

async function readError(response: Response): Promise<ApiError> {
  let message = `Request failed (HTTP ${response.status}).`;
  let code: string | undefined;
  try {
    const body = (await response.json()) as { error?: { code?: string; message?: string } };
    if (body?.error?.message) message = body.error.message;
    code = body?.error?.code;
  } catch {
    // not JSON
  }
  return new ApiError(message, code, response.status);
}

async function send(input: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(input, { credentials: 'same-origin', cache: 'no-store', ...init });
  } catch {
    throw new ApiError('The server could not be reached. Check your connection.', 'network', 0);
  }
}

/** The current session from the cookie, or null when signed out. */
export async function getSession(): Promise<Session | null> {
  const response = await send('/dashboard/api/session', { method: 'GET' });
  if (response.status === 401) return null;
  if (!response.ok) throw await readError(response);
  return (await response.json()) as Session;
}

export async function signIn(apiKey: string): Promise<Session> {
  const response = await send('/dashboard/api/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: apiKey }),
  });
  if (!response.ok) throw await readError(response);
  return (await response.json()) as Session;
}

export async function signOut(): Promise<void> {
  const headers: Record<string, string> = {};
  if (csrfToken) headers['x-csrf-token'] = csrfToken;
  const response = await send('/dashboard/api/session', { method: 'DELETE', headers });
  // 401: the session had already ended, which is what signing out wants.
  if (!response.ok && response.status !== 401) throw await readError(response);
}

export interface GraphQLErrorBody {
  message: string;
  extensions?: { code?: string };
}

/** Runs a query or mutation as the signed-in merchant; throws the first GraphQL error. */
export async function gql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await send('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken ?? '' },
    body: JSON.stringify({ query, variables }),
  });
  noteServerDate(response);
  let body: { data?: T | null; errors?: GraphQLErrorBody[] } | undefined;
  try {
    body = (await response.json()) as typeof body;
  } catch {
    body = undefined;
  }
  const first = body?.errors?.[0];
  const code = first?.extensions?.code;
  if (response.status === 401 || code === 'UNAUTHORIZED' || code === 'UNAUTHENTICATED') {
    unauthorizedHandler?.();
    throw new ApiError(
      first?.message ?? 'Your session has ended. Sign in again.',
      'unauthorized',
      401,
    );
  }
  if (first) throw new ApiError(first.message, first.extensions?.code, response.status);
  if (!response.ok || !body?.data) {
    throw new ApiError(`Request failed (HTTP ${response.status}).`, undefined, response.status);
  }
  return body.data;
}

/**
 * A file from a REST route the session may call (the report downloads): the cookie travels on
 * its own, the CSRF token in its header. Answers the body and the file name the server gave.
 */
export async function download(path: string): Promise<{ blob: Blob; fileName: string | null }> {
  const response = await send(path, {
    method: 'GET',
    headers: { 'x-csrf-token': csrfToken ?? '' },
  });
  if (response.status === 401) unauthorizedHandler?.();
  if (!response.ok) throw await readError(response);
  const disposition = response.headers.get('content-disposition') ?? '';
  const fileName = /filename="([^"]+)"/.exec(disposition)?.[1] ?? null;
  return { blob: await response.blob(), fileName };
}
