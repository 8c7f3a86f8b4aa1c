import { Client } from 'pg';
import { moveFxOrder } from '../../src/adapters/fx/busha/fx-order-store';
import { moveDepositReturn } from '../../src/deposits/deposit-return-transitions';
import { DEPOSIT_RETURN_LIFECYCLE } from '../../src/domain/deposit-return-lifecycle';
import { FX_ORDER_LIFECYCLE } from '../../src/domain/fx-order-lifecycle';
import { ONRAMP_LIFECYCLE } from '../../src/domain/onramp-status';
import { PAYOUT_LIFECYCLE } from '../../src/domain/payout-lifecycle';
import { canMove, type SqlMove, type TransitionTable } from '../../src/domain/transitions';
import { WEBHOOK_DELIVERY_LIFECYCLE } from '../../src/domain/webhook-delivery-status';
import { moveOnrampRows } from '../../src/onramps/onramp-transitions';
import { movePayoutRows } from '../../src/payouts/payout-transitions';
import { moveWebhookDelivery } from '../../src/webhooks/webhook-delivery-transitions';
import { createTestDatabase } from '../support/db';

/**
 * The SQL the move functions give, run by PostgreSQL over a row for every (stored status,
 * target) pair of each lifecycle: an UPDATE keeps to exactly the moves the table allows, with
 * one target for all rows or each row its own.
 */
describe('moves as SQL in PostgreSQL', () => {
  let db: Client;

  beforeAll(async () => {
    db = new Client({ connectionString: await createTestDatabase() });
    await db.connect();
    await db.query('create table status_moves (original text, status text, target text)');
  });
  afterAll(async () => {
    await db?.end();
  });

  const statusesOf = <S extends string>(table: TransitionTable<S>) =>
    Object.keys(table.moves) as S[];

  /** Fills the table with every pair, runs `update` in a transaction rolled back, answers the pairs moved. */
  async function moved<S extends string>(
    table: TransitionTable<S>,
    update: string,
    params: unknown[] = [],
  ) {
    await db.query('begin');
    try {
      await db.query('delete from status_moves');
      for (const from of statusesOf(table)) {
        for (const to of statusesOf(table)) {
          await db.query('insert into status_moves values ($1, $1, $2)', [from, to]);
        }
      }
      const { rows } = await db.query<{ original: string; status: string; target: string }>(
        `${update} returning d.original, d.status, d.target`,
        params,
      );
      for (const row of rows) expect(row.status).toBe(row.target);
      return rows.map((r) => `${r.original}>${r.target}`).sort();
    } finally {
      await db.query('rollback');
    }
  }

  function allowed<S extends string>(table: TransitionTable<S>, to: S | null, unchanged = false) {
    return statusesOf(table)
      .flatMap((from) => statusesOf(table).map((next) => [from, next] as const))
      .filter(([, next]) => to === null || next === to)
      .filter(([from, next]) => canMove(table, from, next) || (unchanged && from === next))
      .map(([from, next]) => `${from}>${next}`)
      .sort();
  }

  const oneTarget = (move: SqlMove) =>
    `update status_moves d set ${move.set} where d.target = $1 and ${move.allowed}`;

  it('moves onramps, webhook deliveries and FX orders to one status only from where they may', async () => {
    const cases: Array<[TransitionTable<string>, (to: string) => SqlMove]> = [
      [ONRAMP_LIFECYCLE, (to) => moveOnrampRows(to as never)],
      [WEBHOOK_DELIVERY_LIFECYCLE, (to) => moveWebhookDelivery(to as never)],
      [FX_ORDER_LIFECYCLE, (to) => moveFxOrder(to as never)],
    ];
    for (const [table, move] of cases) {
      for (const to of statusesOf(table).filter((s) => allowed(table, s).length > 0)) {
        expect(await moved(table, oneTarget(move(to)), [to])).toEqual(allowed(table, to));
      }
    }
  });

  it('moves a return attempt only from the status read, as the table allows', async () => {
    for (const [from, to] of [
      ['PENDING', 'CANCELLED'],
      ['SENT', 'SENT'],
      ['SENT', 'COMPLETED'],
    ] as const) {
      const rows = await moved(
        DEPOSIT_RETURN_LIFECYCLE,
        `${oneTarget(moveDepositReturn(from, to))} and d.original = $2`,
        [to, from],
      );
      expect(rows).toEqual([`${from}>${to}`]);
    }
  });

  it('moves each row to its own target in one statement: deliveries, and payouts written back', async () => {
    const delivery = moveWebhookDelivery({ column: 'i.target' }, 'd.status');
    const batch = (move: SqlMove) =>
      `update status_moves d set ${move.set} from (select distinct original, target from status_moves) i
        where i.original = d.original and i.target = d.target and ${move.allowed}`;
    expect(await moved(WEBHOOK_DELIVERY_LIFECYCLE, batch(delivery))).toEqual(
      allowed(WEBHOOK_DELIVERY_LIFECYCLE, null),
    );
    const payouts = movePayoutRows('d.status', 'i.target');
    expect(await moved(PAYOUT_LIFECYCLE, batch(payouts))).toEqual(
      allowed(PAYOUT_LIFECYCLE, null, true),
    );
  });

  it('writes a new row with its first status', async () => {
    const first = moveWebhookDelivery('PENDING', null);
    await db.query('begin');
    try {
      const { rows } = await db.query(
        `insert into status_moves values (null, ${first.value}, null) returning status`,
      );
      expect(rows).toEqual([{ status: 'PENDING' }]);
    } finally {
      await db.query('rollback');
    }
  });
});
