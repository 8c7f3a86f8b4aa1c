import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * `em.execute(sql, params)` for the reads clients poll, without MikroORM's and knex's layers
 * around each statement (MikroORM's execute and query log, knex's raw query and runner): about
 * 20 us of CPU less per statement (bench/README.md, issue 23). The statement is the same text
 * `em.execute` sends (the platform inlines the values; one simple-protocol query), on a
 * connection of the same pool, and errors come out converted as MikroORM converts them. Inside
 * a transaction it is `em.execute`, on the transaction's connection.
 */
export async function readRows<T>(
  em: EntityManager,
  sql: string,
  params: readonly unknown[],
): Promise<T[]> {
  if (em.isInTransaction()) return em.execute<T[]>(sql, [...params]);
  const text = em.getPlatform().formatQuery(sql, [...params]);
  const pool = em.getConnection().getKnex().client as KnexPool;
  const connection = await pool.acquireConnection();
  try {
    const result = await connection.query(text);
    return result.rows as T[];
  } catch (error) {
    throw em.getDriver().convertException(error as Error);
  } finally {
    pool.releaseConnection(connection);
  }
}

/** The part of knex's client this uses: its pool of `pg` connections. */
interface KnexPool {
  acquireConnection(): Promise<{ query(text: string): Promise<{ rows: unknown[] }> }>;
  releaseConnection(connection: unknown): void;
}
