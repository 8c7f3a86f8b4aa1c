import {
  DeadlockException,
  IsolationLevel,
  UniqueConstraintViolationException,
  type MikroORM,
} from '@mikro-orm/postgresql';
import { classifyPgFailure, type PgFailureKind } from '../../src/db/pg-failures';
import { isRetryableConflict, retryOnConflict } from '../../src/db/retry';
import { mapError } from '../../src/api/error-mapping';
import { classify } from '../../src/cli/cli-errors';
import { ErrorCode } from '../../src/domain/errors';
import { createTestDatabase, openTestOrm } from '../support/db';
import * as scenario from '../support/pg-failure-scenarios';

/**
 * The classifier over error objects a real PostgreSQL produced (issue 34): as the `pg` driver
 * throws them, as MikroORM converts them (its own converter), and wrapped as a `cause`.
 */
describe('classifyPgFailure on real PostgreSQL failures', () => {
  let url: string;
  let orm: MikroORM;
  /** Each scenario's driver error, caused once. */
  const raw = new Map<string, Error>();

  beforeAll(async () => {
    url = await createTestDatabase();
    await scenario.preparePgFailureTables(url);
    orm = await openTestOrm(url);
    raw.set('unique', await scenario.uniqueViolation(url));
    raw.set('exclusion', await scenario.exclusionViolation(url));
    raw.set('serialization', await scenario.serializationFailure(url));
    raw.set('deadlock', await scenario.deadlock(url));
    raw.set('lock timeout', await scenario.lockTimeout(url));
    raw.set('admin shutdown', await scenario.adminShutdown(url));
    raw.set('connection refused', await scenario.connectionRefused());
    raw.set('no such database', await scenario.noSuchDatabase(url));
    raw.set('missing table', await scenario.missingTable(url));
    raw.set('statement timeout', await scenario.statementTimeout(url));
    raw.set('too many connections', await scenario.tooManyConnections(url));
  });
  afterAll(async () => {
    await orm.close();
  });

  /** The error as MikroORM hands it to a service (a copy: the converter edits the message). */
  function converted(name: string): Error {
    const original = raw.get(name)!;
    const copy = Object.assign(Object.create(Object.getPrototypeOf(original)), original, {
      message: original.message,
      stack: original.stack,
    });
    return orm.em.getDriver().convertException(copy);
  }

  /** Scenario, the driver's code (proving the scenario caused what it says), kind, constraint. */
  const EXPECTED: Array<[string, string, PgFailureKind, string | undefined]> = [
    ['unique', '23505', 'unique_violation', 'pgf_items_name_key'],
    ['exclusion', '23P01', 'exclusion', 'pgf_slots_one_holder'],
    ['serialization', '40001', 'serialization', undefined],
    ['deadlock', '40P01', 'deadlock', undefined],
    ['lock timeout', '55P03', 'lock_timeout', undefined],
    ['admin shutdown', '57P01', 'unavailable', undefined],
    ['connection refused', 'ECONNREFUSED', 'unavailable', undefined],
    ['no such database', '3D000', 'misconfigured', undefined],
    ['missing table', '42P01', 'missing_table', undefined],
    ['statement timeout', '57014', 'statement_timeout', undefined],
    ['too many connections', '53300', 'unavailable', undefined],
  ];

  it.each(EXPECTED)(
    'sorts a real %s (%s) as %s, bare, converted and wrapped',
    (name, code, kind, constraint) => {
      expect((raw.get(name) as Error & { code?: string }).code).toBe(code);
      const forms = [raw.get(name)!, converted(name)];
      forms.push(new Error('outer', { cause: forms[1] }));
      forms.push(new Error('outermost', { cause: new Error('middle', { cause: forms[0] }) }));
      for (const form of forms) {
        const failure = classifyPgFailure(form);
        expect(failure?.kind).toBe(kind);
        if (constraint) expect(failure).toMatchObject({ constraint });
      }
    },
  );

  it('tells a serialization failure from a deadlock, which MikroORM gives one class', () => {
    expect(converted('serialization')).toBeInstanceOf(DeadlockException);
    expect(converted('deadlock')).toBeInstanceOf(DeadlockException);
    expect(classifyPgFailure(converted('serialization'))?.kind).toBe('serialization');
    expect(classifyPgFailure(converted('deadlock'))?.kind).toBe('deadlock');
  });

  it('says nothing about errors that are not database failures', () => {
    for (const error of [new Error('boom'), new TypeError('x'), null, undefined, 'text', 42]) {
      expect(classifyPgFailure(error)).toBeNull();
    }
    const check = Object.assign(new Error('violates check'), { code: '23514' });
    expect(classifyPgFailure(check)).toBeNull();
  });

  it('classifies a unique violation on the MikroORM path a service takes', async () => {
    const em = orm.em.fork();
    await em.getConnection().execute(`insert into pgf_items (name) values ('dup')`);
    const error: unknown = await em
      .transactional((tx) => tx.execute(`insert into pgf_items (name) values ('dup')`))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UniqueConstraintViolationException);
    expect(classifyPgFailure(error)).toMatchObject({
      kind: 'unique_violation',
      constraint: 'pgf_items_name_key',
    });
  });

  it('retries the lost races and nothing else', () => {
    const retried = [...raw.keys()].filter((name) => isRetryableConflict(converted(name)));
    expect(retried.sort()).toEqual(['deadlock', 'exclusion', 'serialization']);
  });

  it('reruns a SERIALIZABLE transaction that lost its race, which then succeeds', async () => {
    await scenario.resetDuty(url);
    const winner = orm.em.fork();
    let attempts = 0;
    let loserRead!: () => void;
    const read = new Promise<void>((resolve) => (loserRead = resolve));
    let winnerCommitted!: () => void;
    const committed = new Promise<void>((resolve) => (winnerCommitted = resolve));
    // Goes off duty only while another doctor is on call: the rule write skew breaks.
    const goOffDuty = (id: number) =>
      retryOnConflict(() =>
        orm.em.fork().transactional(
          async (tx) => {
            attempts += 1;
            const [{ n }] = await tx.execute<{ n: number }[]>(
              'select count(*)::int as n from pgf_duty where on_call',
            );
            if (attempts === 1) {
              loserRead();
              await committed;
            }
            if (n >= 2) await tx.execute('update pgf_duty set on_call = false where id = ?', [id]);
          },
          { isolationLevel: IsolationLevel.SERIALIZABLE },
        ),
      );
    const loser = goOffDuty(2);
    await winner.transactional(
      async (tx) => {
        await tx.execute('select count(*) from pgf_duty where on_call');
        await read;
        await tx.execute('update pgf_duty set on_call = false where id = 1');
      },
      { isolationLevel: IsolationLevel.SERIALIZABLE },
    );
    winnerCommitted();
    await loser;
    expect(attempts).toBe(2);
    const onCall = await orm.em
      .fork()
      .execute<{ id: number }[]>('select id from pgf_duty where on_call order by id');
    expect(onCall).toEqual([{ id: 2 }]);
  });

  it('maps each kind to the API error model', () => {
    const answer = (name: string) => {
      const { code, status, message } = mapError(converted(name));
      return { code, status, message };
    };
    const conflict = answer('unique');
    expect(conflict).toMatchObject({ code: ErrorCode.IdempotencyConflict, status: 409 });
    expect(conflict.message).not.toMatch(/pgf_|duplicate|constraint/);
    const transient = ['serialization', 'deadlock', 'exclusion', 'lock timeout'];
    for (const name of [...transient, 'statement timeout', 'too many connections']) {
      expect(answer(name)).toMatchObject({ code: ErrorCode.ServiceUnavailable, status: 503 });
    }
    expect(answer('admin shutdown')).toMatchObject({ status: 503 });
    expect(mapError(raw.get('connection refused')).status).toBe(503);
    expect(answer('missing table')).toMatchObject({ code: ErrorCode.InternalError, status: 500 });
  });

  it('gives the command line its database exit codes', () => {
    expect(classify(raw.get('connection refused'))).toMatchObject({
      code: 'database_unavailable',
      exitCode: 4,
    });
    expect(classify(raw.get('no such database'))).toMatchObject({
      code: 'database_unavailable',
      exitCode: 4,
    });
    expect(classify(converted('missing table'))).toMatchObject({
      code: 'database_not_migrated',
      message: expect.stringContaining('pgf_no_such_table'),
      exitCode: 4,
    });
  });
});
