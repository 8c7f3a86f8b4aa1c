import type { EntityManager } from '@mikro-orm/postgresql';

type Connection = ReturnType<EntityManager['getConnection']>;

/** One transaction around everything a request does through its EntityManager. */
export interface RequestTransaction {
  /** The request's EntityManager from now on: every statement made through it joins. */
  readonly em: EntityManager;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  /** Whether commit or rollback has run (or begun). */
  readonly ended: boolean;
}

/**
 * Opens a transaction that the services' own transactions join, so a request's effects commit
 * together with whatever the caller writes last (an `Idempotency-Key`'s stored answer).
 *
 * The services open their transactions as `em.fork().transactional(...)`, and a MikroORM fork
 * starts outside any transaction. The EntityManager returned here differs in two things, and
 * so do its forks: a fork keeps the transaction (its `transactional` then runs in a savepoint
 * of it: an error rolls back that service's work only, as its own transaction did), and
 * `getConnection().execute` without a transaction runs in this one rather than on another
 * pooled connection. Everything else is MikroORM's own.
 */
export async function openRequestTransaction(em: EntityManager): Promise<RequestTransaction> {
  const bound = joinTransaction(em.fork());
  // The connection's own begin and commit, not the EntityManager's: `em.commit()` would flush
  // the request's unit of work, writing whatever a handler loaded and changed without meaning
  // to (nothing it did not flush itself was ever written before).
  const connection = bound.getConnection('write');
  const ctx = await connection.begin();
  bound.setTransactionContext(ctx);
  let ended = false;
  const end = async (how: 'commit' | 'rollback') => {
    ended = true;
    bound.resetTransactionContext();
    await (how === 'commit' ? connection.commit(ctx) : connection.rollback(ctx));
  };
  return {
    em: bound,
    get ended() {
      return ended;
    },
    commit: () => end('commit'),
    rollback: () => end('rollback'),
  };
}

function joinTransaction(em: EntityManager): EntityManager {
  const fork = em.fork.bind(em);
  const getConnection = em.getConnection.bind(em);
  em.fork = (options) => joinTransaction(fork({ ...options, keepTransactionContext: true }));
  em.getConnection = (type) => inTransaction(getConnection(type), em);
  return em;
}

/** The connection, its `execute` defaulting to the EntityManager's current transaction. */
function inTransaction(connection: Connection, em: EntityManager): Connection {
  const execute: Connection['execute'] = (query, params, method, ctx, loggerContext) =>
    connection.execute(query, params, method, ctx ?? em.getTransactionContext(), loggerContext);
  return Object.create(connection, { execute: { value: execute } }) as Connection;
}
