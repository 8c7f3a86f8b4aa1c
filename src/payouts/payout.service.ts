import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Address, Hex } from 'viem';
import type { Clock } from '../clock';
import type { Config } from '../config';
import { Deposit } from '../db/entities/deposit.entity';
import { Payout } from '../db/entities/payout.entity';
import { Withdrawal } from '../db/entities/withdrawal.entity';
import { executeInTransaction } from '../db/locks';
import { retryOnConflict } from '../db/retry';
import type { ChainGateway, MinedReceipt, Stablecoin } from '../adapters/chain/chain-gateway';
import type { ChainRegistry } from '../adapters/chain/chain-registry';
import { REASON } from '../domain/deposit-reasons';
import { newId } from '../domain/ids';
import { OPERATOR, transfer } from '../domain/ledger';
import { dec } from '../domain/money';
import { bumpedFees, outageOutlasted, toBaseUnits, type Fees } from '../domain/payout-rules';
import {
  type DepositTransitions,
  type RiskReviewService,
  reportSettled,
  type SettlementObserver,
} from '../deposits';
import type { LedgerService } from '../ledger';
import { payoutHolding, payoutReturn } from './payout-ledger';
import type { ChainHealthService } from '../system';

export type SendOutcome = 'signed' | 'waiting' | 'rejected' | 'cancelled' | 'skipped';

export interface NewPayout {
  merchantId: string;
  chain: string;
  asset: string;
  toAddress: string;
  amount: string;
  depositId?: string;
  withdrawalId?: string;
}

/** The payout row, locked until the transaction ends: every status change takes this lock. */
function lockedPayout(tx: EntityManager, id: string): Promise<Payout | null> {
  return tx.findOne(Payout, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

type SignResult = { raw: Hex } | 'rejected' | 'skipped';

interface SignRequest {
  payoutId: string;
  fees: Fees;
  minedNonce: number;
  /** Signs a batch of requests (the first request's `run` signs its whole batch). */
  run: (requests: SignRequest[]) => Promise<Array<Settled<SignResult>>>;
}

/** Most payouts signed in one transaction: bounds how long the nonce lock is held. */
const SIGN_BATCH = 50;

interface StoredTransaction {
  hash: Hex;
  raw_tx: Hex;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  created_at: Date | string;
}

/**
 * On-chain payouts: one row per transfer owed, signed once under the hot wallet's locked nonce
 * row and broadcast from stored bytes. The order of events makes a double send impossible:
 * the signed bytes and the nonce commit together before anything is broadcast, every retry
 * resends exactly those bytes (or a fee-bumped replacement at the SAME nonce), and the nonce
 * can be mined only once.
 */
export class PayoutService {
  /**
   * This process's signers, one batch at a time per hot wallet: payouts asked for while a
   * batch runs are signed together in the next (one transaction, one nonce lock). The nonce
   * row lock alone let one through at a time, each waiter holding a pooled database
   * connection and a payout row lock meanwhile: under load that capped signing at a couple
   * per second per chain and starved every other job of connections. Other runners still
   * meet at the row lock.
   */
  private readonly signing = new Batches<SignRequest, SignResult>(SIGN_BATCH);

  constructor(
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly chains: ChainRegistry,
    private readonly health: ChainHealthService,
    private readonly ledger: LedgerService,
    private readonly transitions: DepositTransitions,
    private readonly risk: RiskReviewService,
    /** Told about each AUTO_WITHDRAW deposit settled by its confirmed payout, after commit. */
    private readonly onSettled?: SettlementObserver,
  ) {}

  /** Inside the caller's transaction (deposit FX, or withdrawal request). */
  async create(tx: EntityManager, input: NewPayout): Promise<Payout> {
    const now = this.clock.now();
    const payout = tx.create(Payout, {
      id: newId('po', this.clock),
      depositId: input.depositId ?? null,
      withdrawalId: input.withdrawalId ?? null,
      merchantId: input.merchantId,
      chain: input.chain,
      asset: input.asset,
      toAddress: input.toAddress,
      amount: dec(input.amount).toFixed(6),
      amountBaseUnits: toBaseUnits(input.amount).toString(),
      status: 'PENDING',
      fromAddress: null,
      tokenAddress: null,
      nonce: null,
      txHash: null,
      signedAt: null,
      broadcastAt: null,
      lastBroadcastAt: null,
      confirmedAt: null,
      blockNumber: null,
      cancelReason: null,
      createdAt: now,
      updatedAt: now,
    });
    await tx.flush();
    return payout;
  }

  /**
   * Takes a PENDING payout to SIGNED and broadcasts it, if its chain is up and risk review
   * approves; a SIGNED one is rebroadcast. Any number of runners may call this at once.
   */
  async send(em: EntityManager, payoutId: string): Promise<SendOutcome> {
    const payout = await em.fork().findOne(Payout, { id: payoutId });
    if (!payout) return 'skipped';
    if (payout.status === 'SIGNED') {
      await this.rebroadcast(em, payout);
      return 'skipped';
    }
    if (payout.status !== 'PENDING') return 'skipped';
    const gateway = this.chains.get(payout.chain);
    const down = await this.health.unavailable(em, payout.chain, payout.merchantId);
    if (down || !gateway) {
      if (
        outageOutlasted(payout.createdAt, this.clock.now(), this.config.CHAIN_OUTAGE_MAX_SECONDS)
      ) {
        return (await this.cancel(em, payout.id, 'chain outage')) ? 'cancelled' : 'skipped';
      }
      return 'waiting';
    }
    let fees: Fees;
    let minedNonce: number;
    try {
      [fees, minedNonce] = await Promise.all([gateway.fees(), gateway.nonce('latest')]);
    } catch (error) {
      await this.health.record(em, payout.chain, error);
      return 'waiting';
    }
    const signed = await this.signing.submit(`${gateway.chain}:${gateway.hotWallet}`, {
      payoutId,
      fees,
      minedNonce,
      run: (requests) => this.signAll(em, gateway, requests),
    });
    if (signed === 'rejected' || signed === 'skipped') return signed;
    await this.broadcast(em, payoutId, gateway, signed.raw);
    return 'signed';
  }

  /**
   * Signs each request's payout in one transaction, one result per request (in order). If
   * the batch fails, each is tried alone, so one payout's error fails only its own caller.
   */
  private async signAll(
    em: EntityManager,
    gateway: ChainGateway,
    requests: SignRequest[],
  ): Promise<Array<Settled<SignResult>>> {
    try {
      const results = await this.signBatch(em, gateway, requests);
      return results.map((value) => ({ value }));
    } catch (error) {
      if (requests.length === 1) return [{ error }];
      const alone: Array<Settled<SignResult>> = [];
      for (const request of requests) alone.push(...(await this.signAll(em, gateway, [request])));
      return alone;
    }
  }

  private signBatch(
    em: EntityManager,
    gateway: ChainGateway,
    requests: SignRequest[],
  ): Promise<SignResult[]> {
    return retryOnConflict(() =>
      em.fork().transactional(async (tx) => {
        const minedNonce = Math.max(...requests.map((r) => r.minedNonce));
        const first = await this.lockNextNonce(tx, gateway, minedNonce);
        let nonce = first;
        const results: SignResult[] = [];
        for (const request of requests) {
          const result = await this.signLocked(tx, request.payoutId, gateway, request.fees, nonce);
          if (typeof result === 'object') nonce += 1;
          results.push(result);
        }
        // The row records nonces we used: a batch that signed nothing leaves it as it was.
        if (nonce > first) {
          await executeInTransaction(
            tx,
            `insert into hot_wallet_nonces (chain, address, next_nonce, updated_at)
             values (?, ?, ?, ?)
             on conflict (chain, address) do update
               set next_nonce = excluded.next_nonce, updated_at = excluded.updated_at`,
            [gateway.chain, gateway.hotWallet, nonce, this.clock.now()],
          );
        }
        return results;
      }),
    );
  }

  /**
   * One signer at a time per hot wallet, across runners: a transaction-scoped advisory lock
   * on the wallet (it exists before the wallet's nonce row does), then the nonce row itself,
   * held to commit. Taken before any payout row, so two signers never hold each other's
   * locks. The next nonce only ever moves forward past nonces already mined (someone else
   * used the wallet); our own signed nonces are all below it.
   */
  private async lockNextNonce(
    tx: EntityManager,
    gateway: ChainGateway,
    minedNonce: number,
  ): Promise<number> {
    await executeInTransaction(tx, 'select pg_advisory_xact_lock(hashtextextended(?, 0))', [
      `hot_wallet:${gateway.chain}:${gateway.hotWallet}`,
    ]);
    const [row] = await executeInTransaction<{ next_nonce: string }>(
      tx,
      'select next_nonce from hot_wallet_nonces where chain = ? and address = ? for update',
      [gateway.chain, gateway.hotWallet],
    );
    return Math.max(row ? Number(row.next_nonce) : 0, minedNonce);
  }

  /** Signs one PENDING payout at `nonce`, under the caller's nonce lock (see signBatch). */
  private async signLocked(
    tx: EntityManager,
    payoutId: string,
    gateway: ChainGateway,
    fees: Fees,
    nonce: number,
  ): Promise<SignResult> {
    const payout = await lockedPayout(tx, payoutId);
    if (!payout || payout.status !== 'PENDING') return 'skipped';
    const decision = await this.risk.review(tx, payout);
    if (!decision.approved) {
      await this.cancelLocked(tx, payout, 'risk review', REASON.riskRejected);
      return 'rejected';
    }
    const { raw, hash } = await gateway.signTransfer({
      asset: payout.asset as Stablecoin,
      to: payout.toAddress as Address,
      amount: BigInt(payout.amountBaseUnits),
      nonce,
      fees,
    });
    await this.storeTransaction(tx, payout, nonce, hash, raw, fees);
    const now = this.clock.now();
    payout.status = 'SIGNED';
    payout.nonce = String(nonce);
    payout.fromAddress = gateway.hotWallet;
    payout.tokenAddress = gateway.tokenAddress(payout.asset as Stablecoin);
    payout.txHash = hash;
    payout.signedAt = now;
    payout.updatedAt = now;
    await tx.flush();
    return { raw };
  }

  private async storeTransaction(
    tx: EntityManager,
    payout: Payout,
    nonce: number,
    hash: Hex,
    raw: Hex,
    fees: Fees,
  ): Promise<void> {
    await executeInTransaction(
      tx,
      `insert into payout_transactions
         (hash, payout_id, nonce, raw_tx, max_fee_per_gas, max_priority_fee_per_gas, created_at)
       values (?, ?, ?, ?, ?, ?, ?)`,
      [
        hash,
        payout.id,
        nonce,
        raw,
        fees.maxFeePerGas.toString(),
        fees.maxPriorityFeePerGas.toString(),
        this.clock.now(),
      ],
    );
  }

  /** Relays signed bytes and records it; a withdrawal shows BROADCAST with the hash. */
  private async broadcast(
    em: EntityManager,
    payoutId: string,
    gateway: ChainGateway,
    raw: Hex,
  ): Promise<void> {
    try {
      await gateway.broadcast(raw);
    } catch (error) {
      // The sweep rebroadcasts the stored bytes; nothing is lost by failing here.
      await this.health.record(em, gateway.chain, error);
      return;
    }
    await em.fork().transactional(async (tx) => {
      const payout = await lockedPayout(tx, payoutId);
      if (!payout || payout.status !== 'SIGNED') return;
      const now = this.clock.now();
      payout.broadcastAt ??= now;
      payout.lastBroadcastAt = now;
      if (payout.withdrawalId) {
        const withdrawal = await tx.findOneOrFail(
          Withdrawal,
          { id: payout.withdrawalId },
          { lockMode: LockMode.PESSIMISTIC_WRITE },
        );
        if (withdrawal.status === 'PENDING' || withdrawal.status === 'BROADCAST') {
          withdrawal.status = 'BROADCAST';
          withdrawal.txHash = payout.txHash;
          withdrawal.updatedAt = now;
        }
      }
      await tx.flush();
    });
  }

  async rebroadcast(em: EntityManager, payout: Payout): Promise<void> {
    const gateway = this.chains.get(payout.chain);
    const latest = await this.latestTransaction(em, payout.id);
    if (!gateway || !latest) return;
    await this.broadcast(em, payout.id, gateway, latest.raw_tx);
  }

  /**
   * One SIGNED payout against the chain: settles it once one of its transactions has the
   * required confirmations; otherwise replaces it with higher fees when stuck, or resends
   * its bytes when the node may have lost them.
   */
  async check(
    em: EntityManager,
    payout: Payout,
    gateway: ChainGateway,
    chainState: { head: bigint; minedNonce: number },
  ): Promise<'confirmed' | 'failed' | 'pending' | 'bumped' | 'rebroadcast' | 'foreign'> {
    const transactions = await this.transactions(em, payout.id);
    if (Number(payout.nonce) < chainState.minedNonce) {
      const receipt = await this.firstReceipt(gateway, transactions);
      if (!receipt) {
        // The nonce is used, but by none of our transactions: someone else spent from the
        // hot wallet. Our bytes can never be mined now; an operator must look.
        return 'foreign';
      }
      if (chainState.head - receipt.blockNumber + 1n < BigInt(gateway.confirmations)) {
        return 'pending';
      }
      await this.finish(em, payout.id, receipt);
      return receipt.success ? 'confirmed' : 'failed';
    }
    const latest = transactions[0];
    const now = this.clock.now().getTime();
    if (now - new Date(latest.created_at).getTime() >= this.config.PAYOUT_STUCK_SECONDS * 1000) {
      await this.bump(em, payout.id, gateway, latest);
      return 'bumped';
    }
    const resendAfterMs = Math.max(5_000, this.config.PAYOUT_POLL_MS * 5);
    if (!payout.lastBroadcastAt || now - payout.lastBroadcastAt.getTime() >= resendAfterMs) {
      await this.broadcast(em, payout.id, gateway, latest.raw_tx);
      return 'rebroadcast';
    }
    return 'pending';
  }

  private async firstReceipt(
    gateway: ChainGateway,
    transactions: StoredTransaction[],
  ): Promise<MinedReceipt | null> {
    for (const transaction of transactions) {
      const receipt = await gateway.receipt(transaction.hash);
      if (receipt) return receipt;
    }
    return null;
  }

  /** Same nonce, higher fees: whichever of the payout's transactions is mined settles it. */
  private async bump(
    em: EntityManager,
    payoutId: string,
    gateway: ChainGateway,
    latest: StoredTransaction,
  ): Promise<void> {
    const current = await gateway.fees();
    const fees = bumpedFees(
      {
        maxFeePerGas: BigInt(latest.max_fee_per_gas),
        maxPriorityFeePerGas: BigInt(latest.max_priority_fee_per_gas),
      },
      current,
    );
    const raw = await em.fork().transactional(async (tx) => {
      const payout = await lockedPayout(tx, payoutId);
      if (!payout || payout.status !== 'SIGNED' || payout.txHash !== latest.hash) return null;
      const signed = await gateway.signTransfer({
        asset: payout.asset as Stablecoin,
        to: payout.toAddress as Address,
        amount: BigInt(payout.amountBaseUnits),
        nonce: Number(payout.nonce),
        fees,
      });
      await this.storeTransaction(tx, payout, Number(payout.nonce), signed.hash, signed.raw, fees);
      payout.txHash = signed.hash;
      payout.updatedAt = this.clock.now();
      await tx.flush();
      return signed.raw;
    });
    if (raw) await this.broadcast(em, payoutId, gateway, raw);
  }

  /** Books a mined payout: confirmed (settles its deposit or withdrawal) or reverted. */
  private async finish(em: EntityManager, payoutId: string, receipt: MinedReceipt): Promise<void> {
    const settled: { deposit?: Deposit } = {};
    await retryOnConflict(() =>
      em.fork().transactional(async (tx) => {
        settled.deposit = undefined;
        const payout = await lockedPayout(tx, payoutId);
        if (!payout || payout.status !== 'SIGNED') return;
        const now = this.clock.now();
        payout.status = receipt.success ? 'CONFIRMED' : 'FAILED';
        payout.txHash = receipt.hash;
        payout.blockNumber = receipt.blockNumber.toString();
        payout.confirmedAt = now;
        payout.updatedAt = now;
        await tx.flush();
        await this.ledger.post(tx, {
          kind: receipt.success ? 'payout_sent' : 'payout_failed',
          payoutId: payout.id,
          depositId: payout.depositId,
          memo: receipt.hash,
          postings: transfer(
            payoutHolding(payout),
            receipt.success ? OPERATOR.usdTreasury : payoutReturn(payout),
            dec(payout.amount),
          ),
        });
        if (payout.depositId) {
          const deposit = await tx.findOneOrFail(
            Deposit,
            { id: payout.depositId },
            { lockMode: LockMode.PESSIMISTIC_WRITE },
          );
          // A deposit FLAGGED meanwhile (bank reversal during settlement) keeps its status;
          // it still learns the hash of the transfer that went out.
          deposit.txHash = receipt.hash;
          if (deposit.status === 'PENDING_WITHDRAWAL') {
            await this.transitions.moveTo(
              tx,
              deposit,
              receipt.success ? 'SETTLED' : 'FLAGGED',
              receipt.success ? {} : { reason: REASON.payoutFailed },
            );
            if (receipt.success) settled.deposit = deposit;
          } else {
            await tx.flush();
          }
        } else {
          await this.finishWithdrawal(
            tx,
            payout,
            receipt.success ? 'COMPLETED' : 'FAILED',
            receipt.success ? null : 'on-chain transfer reverted',
            receipt.hash,
          );
        }
      }),
    );
    if (settled.deposit) reportSettled(this.onSettled, settled.deposit);
  }

  private async finishWithdrawal(
    tx: EntityManager,
    payout: Payout,
    status: 'COMPLETED' | 'FAILED',
    failureReason: string | null,
    txHash: string | null,
  ): Promise<void> {
    const withdrawal = await tx.findOneOrFail(
      Withdrawal,
      { id: payout.withdrawalId! },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    withdrawal.status = status;
    withdrawal.failureReason = failureReason;
    if (txHash) withdrawal.txHash = txHash;
    withdrawal.updatedAt = this.clock.now();
    await tx.flush();
  }

  /**
   * Cancels a payout that was never signed (chain outage past its maximum): its deposit is
   * FLAGGED with the USD held, or its withdrawal FAILED with the USD back in the balance.
   */
  async cancel(em: EntityManager, payoutId: string, why: 'chain outage'): Promise<boolean> {
    return retryOnConflict(() =>
      em.fork().transactional(async (tx) => {
        const payout = await lockedPayout(tx, payoutId);
        if (!payout || payout.status !== 'PENDING') return false;
        await this.cancelLocked(tx, payout, why, REASON.chainOutage);
        return true;
      }),
    );
  }

  /**
   * Cancels a locked PENDING payout and moves its owner: the deposit to FLAGGED with
   * `depositReason` (unless `depositReason` is null: the caller moves it), the withdrawal to
   * FAILED.
   */
  async cancelLocked(
    tx: EntityManager,
    payout: Payout,
    why: string,
    depositReason: string | null,
  ): Promise<void> {
    const now = this.clock.now();
    payout.status = 'CANCELLED';
    payout.cancelReason = why;
    payout.updatedAt = now;
    await tx.flush();
    await this.ledger.post(tx, {
      kind: 'payout_cancelled',
      payoutId: payout.id,
      depositId: payout.depositId,
      memo: why,
      postings: transfer(payoutHolding(payout), payoutReturn(payout), dec(payout.amount)),
    });
    if (payout.depositId) {
      if (depositReason === null) return;
      const deposit = await tx.findOneOrFail(
        Deposit,
        { id: payout.depositId },
        { lockMode: LockMode.PESSIMISTIC_WRITE },
      );
      if (deposit.status === 'PENDING_WITHDRAWAL') {
        await this.transitions.moveTo(tx, deposit, 'FLAGGED', { reason: depositReason });
      }
    } else {
      await this.finishWithdrawal(tx, payout, 'FAILED', why, null);
    }
  }

  /** The payout's signed transactions, newest first. */
  private transactions(em: EntityManager, payoutId: string): Promise<StoredTransaction[]> {
    return em
      .fork()
      .getConnection()
      .execute<StoredTransaction[]>(
        `select hash, raw_tx, max_fee_per_gas::text, max_priority_fee_per_gas::text, created_at
           from payout_transactions where payout_id = ? order by created_at desc, hash`,
        [payoutId],
      );
  }

  private async latestTransaction(
    em: EntityManager,
    payoutId: string,
  ): Promise<StoredTransaction | undefined> {
    return (await this.transactions(em, payoutId))[0];
  }
}

type Settled<T> = { value: T } | { error: unknown };

interface Waiting<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

/**
 * Per key, runs one batch at a time: items submitted while a batch runs wait and go together
 * in the next one (at most `max`). A batch is run by its first item's `run`.
 */
class Batches<I extends { run: (items: I[]) => Promise<Array<Settled<O>>> }, O> {
  private readonly waiting = new Map<string, Array<Waiting<I, O>>>();

  constructor(private readonly max: number) {}

  submit(key: string, item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      const queue = this.waiting.get(key);
      if (queue) {
        queue.push({ item, resolve, reject });
        return;
      }
      // No queue: nothing runs for this key, so this caller starts draining it.
      this.waiting.set(key, [{ item, resolve, reject }]);
      void this.drain(key);
    });
  }

  private async drain(key: string): Promise<void> {
    const queue = this.waiting.get(key)!;
    while (queue.length > 0) {
      const batch = queue.splice(0, this.max);
      let results: Array<Settled<O>>;
      try {
        results = await batch[0].item.run(batch.map((w) => w.item));
      } catch (error) {
        results = batch.map(() => ({ error }));
      }
      batch.forEach((waiting, i) => {
        const result = results[i] ?? { error: new Error('signing batch gave no result') };
        if ('value' in result) waiting.resolve(result.value);
        else waiting.reject(result.error);
      });
    }
    this.waiting.delete(key);
  }
}
