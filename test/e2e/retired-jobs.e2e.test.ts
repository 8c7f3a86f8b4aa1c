import { createTestDatabase } from '../support/db';
import {
  baseEnv,
  startRunner,
  startStack,
  type RunningProcess,
  type Stack,
} from '../support/stack';
import { sql } from '../support/sql';

/**
 * An older version queued one `send-payout` Agenda job per payout; this one signs from an
 * in-process drain and defines no such job. Agenda never runs rows of a name nobody defines,
 * so such rows would sit in the table (and the queue gauges) forever: a starting runner
 * deletes them.
 */
describe('Agenda rows of retired jobs', () => {
  let databaseUrl: string;
  let stack: Stack;
  const extra: RunningProcess[] = [];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    // The first runner creates Agenda's table.
    stack = await startStack(databaseUrl, { gateways: 1, runners: 1 });
  });
  afterAll(async () => {
    await Promise.all(extra.map((p) => p.stop()));
    await stack?.stop();
  });

  it('a starting runner removes the rows of retired jobs an older version left behind', async () => {
    await sql(
      databaseUrl,
      `insert into agenda_jobs (name, next_run_at, data)
       values ('send-payout', now(), '{"payoutId": "po_left_behind", "uniqueKey": "po_left_behind"}'),
              ('send-payout', now() - interval '1 hour', '{"payoutId": "po_older", "uniqueKey": "po_older"}'),
              ('settle-deposit', now(), '{"depositId": "dep_left_behind"}'),
              ('redrive-deposits', now(), '{}')`,
    );
    const count = async () =>
      (
        await sql<{ n: number }>(
          databaseUrl,
          "select count(*)::int as n from agenda_jobs where name in ('send-payout', 'settle-deposit', 'redrive-deposits')",
        )
      )[0].n;
    expect(await count()).toBe(4);

    extra.push(await startRunner(baseEnv(databaseUrl)));
    expect(await count()).toBe(0);
    // Other jobs are untouched: the recurring sweeps are still scheduled.
    const [{ sweeps }] = await sql<{ sweeps: number }>(
      databaseUrl,
      "select count(*)::int as sweeps from agenda_jobs where name = 'process-payouts'",
    );
    expect(sweeps).toBe(1);
  }, 120_000);
});
