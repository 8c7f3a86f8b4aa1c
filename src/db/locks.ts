import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Takes a transaction-scoped advisory lock on the transaction's own connection (a plain
 * `execute` would borrow another pooled connection and release the lock at once).
 */
export async function lockForTransaction(tx: EntityManager, key: number): Promise<void> {
  const ctx = tx.getTransactionContext();
  if (!ctx) throw new Error('lockForTransaction must run inside em.transactional');
  await tx.getConnection().execute('select pg_advisory_xact_lock(?)', [key], 'all', ctx);
}

/** Raw SQL on the transaction's own connection. */
export async function executeInTransaction<T>(
  tx: EntityManager,
  sql: string,
  params: unknown[],
): Promise<T[]> {
  const ctx = tx.getTransactionContext();
  if (!ctx) throw new Error('executeInTransaction must run inside em.transactional');
  return tx.getConnection().execute<T[]>(sql, params, 'all', ctx);
}
