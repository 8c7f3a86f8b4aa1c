import { Client } from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { DEPOSIT_EVENTS, WEBHOOK_DELIVERIES } from '../../src/events/channels';
import { createTestDatabase, forgetTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import { eventually } from '../support/stack';

interface Notice {
  channel: string;
  payload: string;
}

/**
 * The outbox triggers on statements that touch many deposits at once (a settlement batch):
 * one UPDATE writes one event per status change, their webhook deliveries and their notices,
 * checks every move, and writes nothing for rows whose status did not change. Deposits are
 * moved by plain SQL here, without the ledger postings a settlement makes, so this file's
 * database is left out of the after-all ledger check.
 */
describe('deposit events for multi-row statements (real PostgreSQL)', () => {
  let databaseUrl: string;
  let orm: MikroORM;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;
  let listener: Client;
  let writer: Client;
  const notices: Notice[] = [];
  let sentinels = 0;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    forgetTestDatabase(databaseUrl);
    orm = await openTestOrm(databaseUrl);
    const clock = new ManualClock('2026-07-01T09:00:00Z');
    services = createServices(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'true' }), clock);
    kit = depositKit(orm, services, clock);
    listener = new Client({ connectionString: databaseUrl });
    await listener.connect();
    listener.on('notification', (n) =>
      notices.push({ channel: n.channel, payload: n.payload ?? '' }),
    );
    await listener.query(`listen ${DEPOSIT_EVENTS.name}; listen ${WEBHOOK_DELIVERIES.name}`);
    writer = new Client({ connectionString: databaseUrl });
    await writer.connect();
  });
  afterAll(async () => {
    await writer?.end();
    await listener?.end();
    await orm?.close();
  });

  const query = async <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
    (await writer.query(text, params)).rows as T[];

  /**
   * Everything notified before now, then forgets it: a sentinel notice committed after the
   * statements under test arrives after anything they sent (one queue, in commit order).
   */
  async function drainNotices(): Promise<Notice[]> {
    sentinels += 1;
    const sentinel = `sentinel-${sentinels}`;
    await query('select pg_notify($1, $2)', [DEPOSIT_EVENTS.name, sentinel]);
    const index = await eventually(async () => {
      const at = notices.findIndex((n) => n.payload === sentinel);
      return at >= 0 ? at : undefined;
    });
    return notices.splice(0, index + 1).slice(0, index);
  }

  /** `count` PENDING_FX deposits of a merchant, on one permanent onramp. */
  async function pendingDeposits(merchantId: string, count: number) {
    await kit.rate();
    const onramp = await kit.onramp(merchantId, 'PERMANENT', undefined);
    const deposits = [];
    for (let i = 0; i < count; i += 1) {
      deposits.push(await kit.transfer(onramp.accountNumber, '15000'));
    }
    expect(deposits.every((d) => d.status === 'PENDING_FX')).toBe(true);
    return deposits;
  }

  async function merchantWithEndpoint(): Promise<string> {
    const merchant = await kit.merchant('Hooked Co');
    await services.webhookEndpoints.set(orm.em.fork(), merchant, 'http://127.0.0.1:9/hooks');
    return merchant;
  }

  const settleAll = `
    update deposits
       set status = 'SETTLED', amount_asset = 10, fx_executed_at = now(), settled_at = now(),
           updated_at = now()
     where id = any($1)`;

  const outboxOf = (ids: string[]) =>
    query<{ events: number; deliveries: number }>(
      `select (select count(*)::int from events where deposit_id = any($1)) as events,
              (select count(*)::int from webhook_deliveries w join events e on e.id = w.event_id
                where e.deposit_id = any($1)) as deliveries`,
      [ids],
    ).then(([row]) => row);

  it('one UPDATE settling 50 deposits writes their 50 events, the deliveries owed and the notices', async () => {
    const hooked = await merchantWithEndpoint();
    const silent = await kit.merchant('Silent Co');
    const deposits = [
      ...(await pendingDeposits(hooked, 25)),
      ...(await pendingDeposits(silent, 25)),
    ];
    const ids = deposits.map((d) => d.id);
    const hookedIds = new Set(deposits.filter((d) => d.merchantId === hooked).map((d) => d.id));
    await drainNotices();

    // The cost: trigger functions run for the statement, not for each of its 50 rows (before
    // this, 150: the status event, the webhook delivery and the identity check per row).
    await query("begin; set local track_functions = 'pl'");
    const updated = await writer.query(settleAll, [ids]);
    const [{ calls }] = await query<{ calls: number }>(
      'select coalesce(sum(calls), 0)::int as calls from pg_stat_xact_user_functions',
    );
    await query('commit');
    expect(updated.rowCount).toBe(50);
    expect(calls).toBe(1);

    const events = await query<{
      seq: string;
      id: string;
      kind: string;
      status: string;
      deposit_id: string;
      merchant_id: string;
      snapshot_is_row: boolean;
      snapshot: Record<string, unknown>;
    }>(
      `select e.seq, e.id, e.kind, e.status, e.deposit_id, e.merchant_id, e.snapshot,
              e.snapshot = deposit_snapshot(d) as snapshot_is_row
         from events e join deposits d on d.id = e.deposit_id
        where e.deposit_id = any($1) and e.kind = 'deposit.settled'
        order by e.seq`,
      [ids],
    );
    expect(events).toHaveLength(50);
    expect(new Set(events.map((e) => e.deposit_id))).toEqual(new Set(ids));
    for (const event of events) {
      expect(event).toMatchObject({ kind: 'deposit.settled', status: 'SETTLED' });
      expect(event.merchant_id).toBe(hookedIds.has(event.deposit_id) ? hooked : silent);
      expect(event.snapshot_is_row).toBe(true);
      expect(event.snapshot).toMatchObject({ status: 'SETTLED', amount_asset: '10.000000' });
      // The payer's full account number never goes into an event (its name and bank do).
      expect(event.snapshot).not.toHaveProperty('sender_account');
    }
    // One statement, one block of seqs, in the order the notices went out.
    const seqs = events.map((e) => Number(e.seq));
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0] + i));

    const deliveries = await query<{ event_id: string; merchant_id: string; status: string }>(
      `select w.event_id, w.merchant_id, w.status, w.next_attempt_at = e.created_at as due_at_once
         from webhook_deliveries w join events e on e.id = w.event_id
        where e.id = any($1)`,
      [events.map((e) => e.id)],
    );
    expect(deliveries).toHaveLength(25);
    expect(new Set(deliveries.map((d) => d.event_id))).toEqual(
      new Set(events.filter((e) => e.merchant_id === hooked).map((e) => e.id)),
    );
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ merchant_id: hooked, status: 'PENDING', due_at_once: true });
    }

    const sent = await drainNotices();
    const depositNotices = sent.filter((n) => n.channel === DEPOSIT_EVENTS.name);
    expect(depositNotices.map((n) => DEPOSIT_EVENTS.parse(n.payload)?.seq)).toEqual(seqs);
    const byId = new Map(deposits.map((d) => [d.id, d]));
    for (const [i, notice] of depositNotices.entries()) {
      const deposit = byId.get(events[i].deposit_id)!;
      // Byte for byte what the per-row trigger sent before.
      expect(notice.payload).toBe(
        `{"seq" : ${seqs[i]}, "kind" : "deposit.settled", "deposit_id" : "${deposit.id}", ` +
          `"merchant_id" : "${deposit.merchantId}", "onramp_id" : "${deposit.onrampId}", ` +
          `"status" : "SETTLED", "settlement_mode" : "MERCHANT_BALANCE"}`,
      );
      expect(DEPOSIT_EVENTS.parse(notice.payload)).toEqual({
        seq: seqs[i],
        merchantId: deposit.merchantId,
        depositId: deposit.id,
        onrampId: deposit.onrampId,
        status: 'SETTLED',
        settlementMode: 'MERCHANT_BALANCE',
      });
    }
    const webhookNotices = sent.filter((n) => n.channel === WEBHOOK_DELIVERIES.name);
    expect(webhookNotices.map((n) => WEBHOOK_DELIVERIES.parse(n.payload))).toEqual([
      { merchantId: hooked },
    ]);
    expect(sent).toHaveLength(51);
  });

  it('refuses a multi-row UPDATE with one illegal move, and writes and notifies nothing', async () => {
    const merchant = await merchantWithEndpoint();
    const [settled, ...pending] = await pendingDeposits(merchant, 3);
    await writer.query(settleAll, [[settled.id]]);
    const ids = [settled.id, ...pending.map((d) => d.id)];
    const before = await outboxOf(ids);
    await drainNotices();

    // PENDING_FX -> FAILED is allowed for two rows, SETTLED -> FAILED is not.
    await expect(
      writer.query(
        `update deposits set status = 'FAILED', failure_reason = 'test', updated_at = now()
          where id = any($1)`,
        [ids],
      ),
    ).rejects.toMatchObject({
      code: '23514',
      message: `deposit ${settled.id} cannot move from SETTLED to FAILED`,
    });

    const statuses = await query<{ status: string }>(
      'select status from deposits where id = any($1) order by id',
      [ids],
    );
    expect(statuses.map((s) => s.status).sort()).toEqual(['PENDING_FX', 'PENDING_FX', 'SETTLED']);
    expect(await outboxOf(ids)).toEqual(before);
    expect(await drainNotices()).toEqual([]);
  });

  it('refuses a multi-row INSERT with one deposit starting outside the initial statuses', async () => {
    const merchant = await merchantWithEndpoint();
    const [source] = await pendingDeposits(merchant, 1);
    await writer.query(settleAll, [[source.id]]);
    await drainNotices();
    const copies = ['dep_copy_pending', 'dep_copy_settled'];
    // Every column but the generated ones (the payer's last four digits), which no insert names.
    const columns = (
      await query<{ column_name: string }>(
        `select column_name from information_schema.columns
          where table_name = 'deposits' and is_generated = 'NEVER' order by ordinal_position`,
      )
    )
      .map((c) => `"${c.column_name}"`)
      .join(', ');

    await expect(
      writer.query(
        `insert into deposits (${columns})
         select ${columns} from (
           select (jsonb_populate_record(d, jsonb_build_object(
                     'id', c.id, 'bank_reference', c.id,
                     'status', case when c.id like '%pending' then 'PENDING_FX' else 'SETTLED' end))).*
             from deposits d, unnest($2::text[]) as c(id)
            where d.id = $1) r`,
        [source.id, copies],
      ),
    ).rejects.toMatchObject({
      code: '23514',
      message: 'deposit dep_copy_settled cannot start in SETTLED',
    });
    expect(await query('select id from deposits where id = any($1)', [copies])).toEqual([]);
    expect(await drainNotices()).toEqual([]);
  });

  it('writes no event for an UPDATE that leaves the status as it was, and one for each row it moves', async () => {
    const merchant = await merchantWithEndpoint();
    const deposits = await pendingDeposits(merchant, 4);
    const ids = deposits.map((d) => d.id);
    const before = await outboxOf(ids);
    await drainNotices();

    // Names status but keeps it, and changes another column.
    await writer.query(
      `update deposits set status = status, updated_at = updated_at + interval '1 second'
        where id = any($1)`,
      [ids],
    );
    expect(await outboxOf(ids)).toEqual(before);
    expect(await drainNotices()).toEqual([]);

    // Two of four rows move: two events, two deliveries, two deposit notices and one wake-up.
    const moved = ids.slice(0, 2);
    await writer.query(
      `update deposits
          set status = case when id = any($2) then 'FLAGGED' else status end,
              flag_reason = case when id = any($2) then 'test' else flag_reason end
        where id = any($1)`,
      [ids, moved],
    );
    expect(await outboxOf(ids)).toEqual({
      events: before.events + 2,
      deliveries: before.deliveries + 2,
    });
    const sent = await drainNotices();
    expect(
      sent
        .filter((n) => n.channel === DEPOSIT_EVENTS.name)
        .map((n) => DEPOSIT_EVENTS.parse(n.payload)?.depositId)
        .sort(),
    ).toEqual([...moved].sort());
    expect(sent.filter((n) => n.channel === WEBHOOK_DELIVERIES.name)).toHaveLength(1);
  });

  it('still refuses a change to a deposit’s identity or amount', async () => {
    const [deposit] = await pendingDeposits(await kit.merchant(), 1);
    await expect(
      writer.query('update deposits set amount_ngn = amount_ngn + 1 where id = $1', [deposit.id]),
    ).rejects.toMatchObject({ code: '23001' });
  });
});
