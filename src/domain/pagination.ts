import { invalidParameter } from './errors';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface PageRequest {
  page: number;
  perPage: number;
}

export interface PageInfo {
  total: number;
  page: number;
  per_page: number;
  total_pages: number;
}

/** REST page/per_page: defaults 1 and 20; per_page above 100 or page below 1 is refused. */
export function parsePage(page: number | undefined, perPage: number | undefined): PageRequest {
  const p = page ?? 1;
  const n = perPage ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(p) || p < 1)
    throw invalidParameter('page', 'must be an integer of at least 1');
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE_SIZE) {
    throw invalidParameter('per_page', `must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  return { page: p, perPage: n };
}

export function pageInfo(request: PageRequest, total: number): PageInfo {
  return {
    total,
    page: request.page,
    per_page: request.perPage,
    total_pages: Math.ceil(total / request.perPage),
  };
}

/** Relay cursors over (created_at desc, id desc): opaque to clients. */
export interface Cursor {
  createdAt: Date;
  id: string;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(`${cursor.createdAt.toISOString()}|${cursor.id}`, 'utf8').toString(
    'base64url',
  );
}

export function decodeCursor(value: string): Cursor {
  const text = Buffer.from(value, 'base64url').toString('utf8');
  const [iso, id] = text.split('|');
  const createdAt = new Date(iso ?? '');
  if (!id || Number.isNaN(createdAt.getTime()) || value.length > 200) {
    throw invalidParameter('after', 'is not a cursor returned by this API');
  }
  return { createdAt, id };
}

/** GraphQL `first`: default 20, 1 to 100. */
export function parseFirst(first: number | null | undefined): number {
  const n = first ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE_SIZE) {
    throw invalidParameter('first', `must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  return n;
}
