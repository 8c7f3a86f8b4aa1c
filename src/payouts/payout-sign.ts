import type { EntityManager } from '@mikro-orm/postgresql';
import type { Address, Hex } from 'viem';
import type { Clock } from '../clock';
import { executeInTransaction } from '../db/locks';
import { retryOnConflict } from '../db/retry';
import type { ChainGateway, Stablecoin } from '../adapters/chain/chain-gateway';
import { REASON } from '../domain/deposit-reasons';
import type { Fees } from '../domain/payout-rules';
import type { RiskReviewService } from '../deposits';
import { Batcher, type Settled } from '../lib/batching';
import type { PayoutCanceller } from './payout-cancel';
import { lockedPayout, storeTransaction } from './payout-rows';
import { movePayout } from './payout-transitions';

export type SignResult = { raw: Hex } | 'rejected' | 'skipped';

interface SignRequest {
  em: EntityManager;
  gateway: ChainGateway;
  payoutId: string;
  fees: Fees;
  minedNonce: number;
}

/** Most payouts signed in one transaction: bounds how long the nonce lock is held. */
const SIGN_BATCH = 50;

/**
 * The sign stage: PENDING payouts take the hot wallet's next nonces and are signed, their
 * bytes stored, in one transaction under the wallet's nonce row. Nothing is broadcast before
 * that commits, so every retry resends exactly these bytes and a nonce is never reused or
 * skipped.
 */
export class PayoutSigner {
  /**
   * This process's signers, one batch at a time per hot wallet: payouts asked for while a
   * batch runs are signed together in the next (one transaction, one nonce lock). The nonce
   * row lock alone let one through at a time, each waiter holding a pooled database
   * connection and a payout row lock meanwhile: under load that capped signing at a couple
   * per second per chain and starved every other job of connections. Other runners still
   * meet at the row lock.
   */
  private readonly signing = new Batcher<SignRequest, SignResult>({
    maxBatch: SIGN_BATCH,
    // One key per hot wallet and chain: every request of a batch has the same gateway.
    run: (requests) => this.signAll(requests[0].em, requests[0].gateway, requests),
  });

  constructor(
    private readonly clock: Clock,
    private readonly risk: RiskReviewService,
    private readonly canceller: PayoutCanceller,
  ) {}

  /** Signs one payout (with whatever else is waiting for the same hot wallet). */
  sign(
    em: EntityManager,
    gateway: ChainGateway,
    payoutId: string,
    chainState: { fees: Fees; minedNonce: number },
  ): Promise<SignResult> {
    return this.signing.submit(
      { em, gateway, payoutId, ...chainState },
      `${gateway.chain}:${gateway.hotWallet}`,
    );
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
      await this.canceller.cancelLocked(tx, payout, 'risk review', REASON.riskRejected);
      return 'rejected';
    }
    const asset = payout.asset as Stablecoin;
    const { raw, hash } = await gateway.signTransfer({
      asset,
      to: payout.toAddress as Address,
      amount: BigInt(payout.amountBaseUnits),
      nonce,
      fees,
    });
    const now = this.clock.now();
    await storeTransaction(tx, payout, { nonce, hash, raw, fees }, now);
    movePayout(
      payout,
      {
        to: 'SIGNED',
        nonce,
        fromAddress: gateway.hotWallet,
        tokenAddress: gateway.tokenAddress(asset),
        txHash: hash,
      },
      now,
    );
    await tx.flush();
    return { raw };
  }
}
