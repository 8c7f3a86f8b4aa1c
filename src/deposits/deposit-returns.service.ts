import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { Deposit } from './deposit.entity';
import { executeInTransaction } from '../db/locks';
import { retryOnConflict } from '../db/retry';
import { DomainError, ErrorCode } from '../domain/errors';
import { newId } from '../domain/ids';
import { dec, type Dec } from '../domain/money';
import { returnFee } from '../domain/return-fee';
import type { DepositTransitions } from './deposit-transitions';
import { moveDepositReturn } from './deposit-return-transitions';

/** Who asked for a return, for the attempt's record (`merchant:{id}`, `operator:{name}`, `rule:{name}`). */
export type ReturnActor = string;

/**
 * Starting returns to the payer (docs/api.md, "Returns to the payer"): a FLAGGED deposit (or a
 * RETURN_FAILED one the operator tries again) moves to RETURNING, its NGN from suspense to
 * ngn_returns (the move's holding entry), and a `deposit_returns` attempt is written for the
 * runner, which calls the bank after commit. Only NGN never converted can go back in NGN, and
 * only to a known sender account; anything else is refused with `invalid_parameter`.
 */
export class DepositReturnService {
  constructor(
    private readonly clock: Clock,
    private readonly transitions: DepositTransitions,
    private readonly feeNgn: Dec,
  ) {}

  /**
   * The one entry point other code calls inside its own transaction (the merchant route,
   * the operator's resolution, helper rules at ingestion). Locks the deposits itself.
   */
  async startReturns(
    tx: EntityManager,
    depositIds: string[],
    reason: string,
    actor: ReturnActor,
    options: { allowRetry?: boolean } = {},
  ): Promise<Deposit[]> {
    const ids = [...new Set(depositIds)].sort();
    const deposits = await tx.find(
      Deposit,
      { id: { $in: ids } },
      { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { id: 'asc' } },
    );
    for (const deposit of deposits) {
      refuseUnreturnable(deposit, options.allowRetry ?? false);
      await this.transitions.moveTo(tx, deposit, 'RETURNING');
      await this.recordAttempt(tx, deposit, reason, actor);
    }
    return deposits;
  }

  /** The merchant's `POST /v1/deposits/{id}/return`: its own FLAGGED deposit only. */
  async returnForMerchant(
    em: EntityManager,
    merchantId: string,
    depositId: string,
  ): Promise<Deposit> {
    return retryOnConflict(() =>
      em.fork().transactional(async (tx) => {
        const found = await tx.findOne(Deposit, { id: depositId, merchantId }, { fields: ['id'] });
        if (!found) throw new DomainError(ErrorCode.NotFound, `No deposit ${depositId}`);
        const [deposit] = await this.startReturns(
          tx,
          [depositId],
          'Returned to the payer at the merchant’s request',
          `merchant:${merchantId}`,
        );
        return deposit;
      }),
    );
  }

  private async recordAttempt(
    tx: EntityManager,
    deposit: Deposit,
    reason: string,
    actor: ReturnActor,
  ): Promise<void> {
    const now = this.clock.now();
    const fee = returnFee(dec(deposit.amountNgn), this.feeNgn);
    const first = moveDepositReturn(null, 'PENDING');
    await executeInTransaction(
      tx,
      `insert into deposit_returns
         (id, deposit_id, merchant_id, status, amount_ngn, fee_ngn, to_account, bank_code, name,
          reason, actor, next_attempt_at, created_at, updated_at)
       values (?, ?, ?, ${first.value}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        newId('ret', this.clock),
        deposit.id,
        deposit.merchantId,
        deposit.amountNgn,
        fee.toFixed(2),
        deposit.senderAccount,
        deposit.senderBank,
        deposit.senderName,
        reason,
        actor,
        now,
        now,
        now,
      ],
    );
  }
}

function refuseUnreturnable(deposit: Deposit, allowRetry: boolean): void {
  const from = allowRetry ? ['FLAGGED', 'RETURN_FAILED'] : ['FLAGGED'];
  if (!from.includes(deposit.status)) {
    throw new DomainError(
      ErrorCode.InvalidParameter,
      `Only ${from.join(' or ')} deposits can be returned to the payer; this one is ${deposit.status}`,
    );
  }
  if (deposit.fxExecutedAt !== null || deposit.reversedAt !== null) {
    throw new DomainError(
      ErrorCode.InvalidParameter,
      deposit.reversedAt !== null
        ? 'The bank reversed this transfer: the payer already has the NGN back'
        : 'This deposit was converted before it was flagged: only the operator can return it (onramp deposits resolve --return)',
    );
  }
  if (!deposit.senderAccount) {
    throw new DomainError(
      ErrorCode.InvalidParameter,
      'The bank did not say which account sent this deposit, so it cannot be returned',
    );
  }
}
