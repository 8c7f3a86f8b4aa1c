import { createServer } from 'node:net';
import { Client } from 'pg';

/**
 * Real PostgreSQL failures, caused on a test database through the `pg` driver itself: each
 * scenario returns the error object the driver threw. `preparePgFailureTables` creates the
 * throwaway tables they use (prefixed `pgf_`, touched by nothing else).
 */

async function connect(url: string): Promise<Client> {
  const client = new Client({ connectionString: url });
  // A terminated backend also reports on the client's socket; the failing query carries it.
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

async function session<T>(url: string, run: (client: Client) => Promise<T>): Promise<T> {
  const client = await connect(url);
  try {
    return await run(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function caught(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the statement to fail');
}

export async function preparePgFailureTables(url: string): Promise<void> {
  await session(url, (c) =>
    c.query(`
      create table pgf_items (id serial primary key,
        name text not null constraint pgf_items_name_key unique);
      create table pgf_slots (slot int not null,
        constraint pgf_slots_one_holder exclude using btree (slot with =));
      create table pgf_pair (id int primary key, v int not null default 0);
      insert into pgf_pair (id) values (1), (2);
      create table pgf_duty (id int primary key, on_call boolean not null);
      insert into pgf_duty values (1, true), (2, true);`),
  );
}

/** Both doctors on call again (the write-skew scenarios take one off). */
export async function resetDuty(url: string): Promise<void> {
  await session(url, (c) => c.query('update pgf_duty set on_call = true'));
}

/** 23505: the same name twice. */
export async function uniqueViolation(url: string): Promise<Error> {
  return session(url, async (c) => {
    const name = `n_${Math.random()}`;
    await c.query('insert into pgf_items (name) values ($1)', [name]);
    return caught(c.query('insert into pgf_items (name) values ($1)', [name]));
  });
}

/** 23P01: two rows holding the same slot. */
export async function exclusionViolation(url: string): Promise<Error> {
  return session(url, async (c) => {
    const slot = Math.floor(Math.random() * 1e9);
    await c.query('insert into pgf_slots values ($1)', [slot]);
    return caught(c.query('insert into pgf_slots values ($1)', [slot]));
  });
}

/**
 * 40001: write skew between two SERIALIZABLE transactions. Each sees both doctors on call and
 * takes a different one off; whichever commits second cannot be serialized after the first.
 */
export async function serializationFailure(url: string): Promise<Error> {
  await resetDuty(url);
  const [a, b] = [await connect(url), await connect(url)];
  try {
    for (const c of [a, b]) {
      await c.query('begin isolation level serializable');
      await c.query('select count(*) from pgf_duty where on_call');
    }
    await a.query('update pgf_duty set on_call = false where id = 1');
    await a.query('commit');
    return await caught(
      (async () => {
        await b.query('update pgf_duty set on_call = false where id = 2');
        await b.query('commit');
      })(),
    );
  } finally {
    await b.query('rollback').catch(() => undefined);
    await Promise.all([a.end(), b.end()]);
  }
}

/**
 * 40P01: two transactions lock the pair's rows in opposite orders; PostgreSQL ends one after
 * `deadlock_timeout` (1 s by default), and the other then goes on.
 */
export async function deadlock(url: string): Promise<Error> {
  const [a, b] = [await connect(url), await connect(url)];
  try {
    await a.query('begin');
    await b.query('begin');
    await a.query('update pgf_pair set v = v + 1 where id = 1');
    await b.query('update pgf_pair set v = v + 1 where id = 2');
    const outcomes = await Promise.allSettled([
      a.query('update pgf_pair set v = v + 1 where id = 2'),
      b.query('update pgf_pair set v = v + 1 where id = 1'),
    ]);
    const failed = outcomes.filter((o) => o.status === 'rejected');
    if (failed.length !== 1) throw new Error(`expected one deadlock victim, got ${failed.length}`);
    return (failed[0] as PromiseRejectedResult).reason as Error;
  } finally {
    await Promise.all([a.query('rollback'), b.query('rollback')]);
    await Promise.all([a.end(), b.end()]);
  }
}

/** 55P03: a row lock not granted within a 50 ms `lock_timeout`. */
export async function lockTimeout(url: string): Promise<Error> {
  const [a, b] = [await connect(url), await connect(url)];
  try {
    await a.query('begin');
    await a.query('select * from pgf_pair where id = 1 for update');
    await b.query(`set lock_timeout = '50ms'`);
    return await caught(b.query('update pgf_pair set v = v + 1 where id = 1'));
  } finally {
    await a.query('rollback');
    await Promise.all([a.end(), b.end()]);
  }
}

/** 57P01: the backend running a query is terminated (as at a server shutdown). */
export async function adminShutdown(url: string): Promise<Error> {
  const victim = await connect(url);
  try {
    const { rows } = await victim.query<{ pid: number }>('select pg_backend_pid() as pid');
    const running = caught(victim.query('select pg_sleep(30)'));
    await session(url, async (c) => {
      // Wait until the sleep is running, so it (not the idle session) receives the error.
      for (let i = 0; i < 200; i++) {
        const active = await c.query(
          `select 1 from pg_stat_activity where pid = $1 and state = 'active'`,
          [rows[0].pid],
        );
        if (active.rowCount) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await c.query('select pg_terminate_backend($1)', [rows[0].pid]);
    });
    return await running;
  } finally {
    await victim.end().catch(() => undefined);
  }
}

/** ECONNREFUSED: nothing listens on the port (one just freed). */
export async function connectionRefused(): Promise<Error> {
  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = server.address() as { port: number };
      server.close(() => resolve(p));
    });
  });
  const client = new Client({ connectionString: `postgres://x@127.0.0.1:${port}/x` });
  return caught(client.connect());
}

/** 3D000: the server is there, the configured database is not. */
export async function noSuchDatabase(url: string): Promise<Error> {
  const target = new URL(url);
  target.pathname = '/pgf_no_such_database';
  const client = new Client({ connectionString: target.toString() });
  return caught(client.connect());
}

/** 42P01: a table that does not exist. */
export async function missingTable(url: string): Promise<Error> {
  return session(url, (c) => caught(c.query('select * from pgf_no_such_table')));
}

/** 57014: a statement cancelled by `statement_timeout`. */
export async function statementTimeout(url: string): Promise<Error> {
  return session(url, async (c) => {
    await c.query(`set statement_timeout = '50ms'`);
    return caught(c.query('select pg_sleep(5)'));
  });
}

/** 53300: a connection limit reached (a limit of 0 on a scratch role; roles are cluster-wide). */
export async function tooManyConnections(url: string): Promise<Error> {
  const role = `pgf_limited_${process.pid}`;
  await session(url, async (c) => {
    await c.query(`drop role if exists ${role}`);
    await c.query(`create role ${role} login password 'pgf' connection limit 0`);
  });
  const target = new URL(url);
  target.username = role;
  target.password = 'pgf';
  const client = new Client({ connectionString: target.toString() });
  try {
    return await caught(client.connect());
  } finally {
    await session(url, (c) => c.query(`drop role if exists ${role}`));
  }
}
