import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import type { Deposit } from './deposit.entity';
import type { DepositStatus } from '../domain/deposit-state-machine';
import { countsAgainstLimits } from '../domain/deposit-rules';
import { ngnHoldingOf, transfer } from '../domain/ledger';
import { Dec, dec } from '../domain/money';
import { adjustDailyVolume } from './daily-volume';
import { executeInTransaction } from '../db/locks';
import type { LedgerEntry, LedgerService } from '../ledger';
import { checkDepositMove, moveDeposit, type MoveOptions } from './deposit-move';

export type { MoveOptions } from './deposit-move';

/** What a move reads and writes of a deposit: the entity, or a row a batch read itself. */
export type MovableDeposit = Pick<
  Deposit,
  | 'id'
  | 'merchantId'
  | 'status'
  | 'amountNgn'
  | 'limitUsd'
  | 'lagosDay'
  | 'fxExecutedAt'
  | 'flagReason'
  | 'failureReason'
  | 'settledAt'
  | 'updatedAt'
>;

/** A settlement batch's deposit: the move's columns plus the conversion it records. */
export type BatchDeposit = MovableDeposit & Pick<Deposit, 'rateId' | 'amountAsset'>;

export interface BatchMove {
  deposit: BatchDeposit;
  to: DepositStatus;
  options?: MoveOptions;
}

/** What a move costs besides the status: the day's limit totals and the NGN's holding account. */
interface MoveEffects {
  volumeDelta: Dec | null;
  hold: LedgerEntry | null;
}

/**
 * The one place a deposit's status changes: checks the move against the table, keeps the
 * daily limit totals and the NGN holding accounts in step, and saves. The database trigger
 * writes the move's outbox event in the same transaction. The deposit must be row-locked.
 */
export class DepositTransitions {
  constructor(
    private readonly clock: Clock,
    private readonly ledger: LedgerService,
  ) {}

  async moveTo(
    tx: EntityManager,
    deposit: Deposit,
    to: DepositStatus,
    options: MoveOptions = {},
  ): Promise<void> {
    const effects = effectsOf(deposit, to, options);
    if (effects.volumeDelta) {
      await adjustDailyVolume(tx, deposit.merchantId, deposit.lagosDay, effects.volumeDelta);
    }
    if (effects.hold) await this.ledger.post(tx, effects.hold);
    moveDeposit(deposit, to, options, this.clock.now());
    // Back in PENDING_FX (an operator's retry): any drain may take it at once.
    if (to === 'PENDING_FX') {
      deposit.settleClaim = null;
      deposit.settleClaimExpiresAt = null;
    }
    await tx.flush();
  }

  /**
   * `moveTo` for a settlement batch, with the same rule: every move checked first, the limit
   * totals adjusted, all rows written in one statement (with the conversion each records, and
   * its claim released), then the holding-account entries and `alsoPost` in one ledger write.
   * The ledger comes last: a merchant credit locks the balance row until commit, and every
   * settlement of that merchant waits on it. The deposits must be row-locked.
   */
  async moveAllTo(
    tx: EntityManager,
    moves: BatchMove[],
    alsoPost: LedgerEntry[] = [],
  ): Promise<void> {
    if (moves.length === 0) return;
    const effects = moves.map((m) => effectsOf(m.deposit, m.to, m.options ?? {}));
    const volume = new Map<string, { merchantId: string; day: string; delta: Dec }>();
    moves.forEach(({ deposit }, i) => {
      const delta = effects[i].volumeDelta;
      if (!delta) return;
      const key = `${deposit.merchantId} ${deposit.lagosDay}`;
      const entry = volume.get(key) ?? {
        merchantId: deposit.merchantId,
        day: deposit.lagosDay,
        delta: dec(0),
      };
      volume.set(key, { ...entry, delta: entry.delta.plus(delta) });
    });
    // The day's rows in one order everywhere (merchant before system, merchants by id).
    for (const key of [...volume.keys()].sort()) {
      const { merchantId, day, delta } = volume.get(key)!;
      await adjustDailyVolume(tx, merchantId, day, delta);
    }
    const now = this.clock.now();
    for (const move of moves) moveDeposit(move.deposit, move.to, move.options ?? {}, now);
    await moveDepositRows(
      tx,
      moves.map((m) => m.deposit),
    );
    const entries = [...effects.flatMap((e) => (e.hold ? [e.hold] : [])), ...alsoPost];
    if (entries.length > 0) await this.ledger.postAll(tx, entries);
  }
}

/** Checks the move against the table and says what else it changes; writes nothing. */
function effectsOf(deposit: MovableDeposit, to: DepositStatus, options: MoveOptions): MoveEffects {
  const from = deposit.status;
  checkDepositMove(from, to, options);
  let volumeDelta: Dec | null = null;
  if (countsAgainstLimits(from) !== countsAgainstLimits(to)) {
    const limitUsd = dec(deposit.limitUsd);
    volumeDelta = countsAgainstLimits(to) ? limitUsd : limitUsd.neg();
  }
  const converted = deposit.fxExecutedAt !== null;
  const held = ngnHoldingOf(from, converted);
  const next = ngnHoldingOf(to, converted);
  const hold =
    !options.ngnLeft && held && next && held.id !== next.id
      ? {
          kind: 'deposit_hold',
          depositId: deposit.id,
          memo: `${from} -> ${to}`,
          postings: transfer(held, next, dec(deposit.amountNgn)),
        }
      : null;
  return { volumeDelta, hold };
}

/**
 * Writes a batch's moves, each made by `moveDeposit`, in one UPDATE; the status trigger checks
 * each row's move against `deposit_transitions` again and records it.
 */
async function moveDepositRows(tx: EntityManager, deposits: BatchDeposit[]): Promise<void> {
  await executeInTransaction(
    tx,
    `update deposits as d
        set status = v.status, flag_reason = v.flag_reason, failure_reason = v.failure_reason,
            settled_at = v.settled_at, updated_at = v.updated_at, rate_id = v.rate_id,
            amount_asset = v.amount_asset, fx_executed_at = v.fx_executed_at,
            settle_claim = null, settle_claim_expires_at = null
       from (values ${deposits
         .map(
           () =>
             '(?::text, ?::text, ?::text, ?::text, ?::timestamptz, ?::timestamptz, ?::text, ?::numeric, ?::timestamptz)',
         )
         .join(', ')})
         as v(id, status, flag_reason, failure_reason, settled_at, updated_at, rate_id, amount_asset, fx_executed_at)
      where d.id = v.id`,
    deposits.flatMap((d) => [
      d.id,
      d.status,
      d.flagReason,
      d.failureReason,
      d.settledAt,
      d.updatedAt,
      d.rateId,
      d.amountAsset,
      d.fxExecutedAt,
    ]),
  );
}
