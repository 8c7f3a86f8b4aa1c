import type { Cursor } from '../domain/pagination';

/** Lists are newest first: created_at, then id to break ties. */
export const NEWEST_FIRST = { createdAt: 'desc', id: 'desc' } as const;

/**
 * A list's filter narrowed to the rows strictly after `after` in NEWEST_FIRST order (keyset
 * pages for GraphQL connections); the filter itself when there is no cursor.
 */
export function afterCursor<W>(where: W, after: Cursor | null): W {
  if (!after) return where;
  return {
    $and: [
      where,
      {
        $or: [
          { createdAt: { $lt: after.createdAt } },
          { createdAt: after.createdAt, id: { $lt: after.id } },
        ],
      },
    ],
  } as unknown as W;
}
