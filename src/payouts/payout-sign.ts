import type { EntityManager } from '@mikro-orm/postgresql';
import type { Address, Hex } from 'viem';
import type { Clock } from '../clock';
import type { Payout } from './payout.entity';
import { executeInTransaction } from '../db/locks';
import { retryOnConflict } from '../db/retry';
import type { ChainGateway, Stablecoin } from '../adapters/chain/chain-gateway';
import { REASON } from '../domain/deposit-reasons';
import type { Fees } from '../domain/payout-rules';
import type { PayoutRiskReview as RiskReviewService } from './payout-ports';
import { Batcher, type Settled } from '../lib/batching';
import type { PayoutCanceller } from './payout-cancel';
import { storeTransactions } from './payout-rows';
import { lockPayouts, savePayouts } from './payout-store';
import { movePayout } from './payout-transitions';

export type SignResult = { raw: Hex } | 'rejected' | 'skipped';

/** What the chain said just before signing: the fees to offer and the wallet's mined nonce. */
export interface ChainState {
  fees: Fees;
  minedNonce: number;
}

interface SignRequest extends ChainState {
  em: EntityManager;
  gateway: ChainGateway;
  payoutId: string;
}

/** Most payouts signed in one transaction: bounds how long the nonce lock is held. */
export const SIGN_BATCH = 50;

/**
 * The sign stage: PENDING payouts take the hot wallet's next nonces and are signed, their
 * bytes stored, in one transaction under the wallet's nonce row. Nothing is broadcast before
 * that commits, so every retry resends exactly these bytes and a nonce is never reused or
 * skipped.
 */
export class PayoutSigner {
  /**
   * Single payouts asked for by `sign` (PayoutService.send), one batch at a time per hot
   * wallet: those asked for while a batch runs go together in the next. The signing drain
   * does not need this: it hands `signAll` a whole batch itself.
   */
  private readonly signing = new Batcher<SignRequest, SignResult>({
    maxBatch: SIGN_BATCH,
    // One key per hot wallet and chain: every request of a batch has the same gateway.
    run: (requests) =>
      this.signAll(
        requests[0].em,
        requests[0].gateway,
        requests.map((r) => r.payoutId),
        { fees: requests[0].fees, minedNonce: Math.max(...requests.map((r) => r.minedNonce)) },
      ),
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
    chainState: ChainState,
  ): Promise<SignResult> {
    return this.signing.submit(
      { em, gateway, payoutId, ...chainState },
      `${gateway.chain}:${gateway.hotWallet}`,
    );
  }

  /**
   * Signs the payouts in one transaction, nonces in order of creation; one result per id (in
   * order). If the batch fails, each is tried alone, so one payout's error fails only its own.
   */
  async signAll(
    em: EntityManager,
    gateway: ChainGateway,
    payoutIds: string[],
    chainState: ChainState,
  ): Promise<Array<Settled<SignResult>>> {
    try {
      const results = await this.signBatch(em, gateway, payoutIds, chainState);
      return results.map((value) => ({ value }));
    } catch (error) {
      if (payoutIds.length === 1) return [{ error }];
      const alone: Array<Settled<SignResult>> = [];
      for (const id of payoutIds)
        alone.push(...(await this.signAll(em, gateway, [id], chainState)));
      return alone;
    }
  }

  /**
   * One transaction with a fixed number of statements whatever the batch size: the wallet's
   * locks, the payouts locked in one read, the risk decisions in one insert, the signed
   * transactions in one insert, the payouts' moves in one update, the nonce row once. Only a
   * payout that risk review rejects costs statements of its own (its cancellation).
   */
  private signBatch(
    em: EntityManager,
    gateway: ChainGateway,
    payoutIds: string[],
    { fees, minedNonce }: ChainState,
  ): Promise<SignResult[]> {
    return retryOnConflict(() =>
      em.fork().transactional(async (tx) => {
        const first = await this.lockNextNonce(tx, gateway, minedNonce);
        const pending = await lockPayouts(tx, payoutIds, { order: 'created', status: 'PENDING' });
        const results = new Map<string, SignResult>();
        const decisions = await this.risk.reviewAll(tx, pending);
        const approved: Payout[] = [];
        for (const [k, payout] of pending.entries()) {
          if (decisions[k].approved) {
            approved.push(payout);
            continue;
          }
          const sanctioned = decisions[k].flagReason;
          await this.canceller.cancelLocked(
            tx,
            payout,
            sanctioned ? 'sanctions screening' : 'risk review',
            sanctioned ?? REASON.riskRejected,
          );
          results.set(payout.id, 'rejected');
        }
        const now = this.clock.now();
        let nonce = first;
        const signed = [];
        for (const payout of approved) {
          const asset = payout.asset as Stablecoin;
          const { raw, hash } = await gateway.signTransfer({
            asset,
            to: payout.toAddress as Address,
            amount: BigInt(payout.amountBaseUnits),
            nonce,
            fees,
          });
          signed.push({ payoutId: payout.id, nonce, hash, raw, fees });
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
          results.set(payout.id, { raw });
          nonce += 1;
        }
        await storeTransactions(tx, signed, now);
        await savePayouts(tx, approved);
        // The row records nonces we used: a batch that signed nothing leaves it as it was.
        if (nonce > first) {
          await executeInTransaction(
            tx,
            `insert into hot_wallet_nonces (chain, address, next_nonce, updated_at)
             values (?, ?, ?, ?)
             on conflict (chain, address) do update
               set next_nonce = excluded.next_nonce, updated_at = excluded.updated_at`,
            [gateway.chain, gateway.hotWallet, nonce, now],
          );
        }
        // An id asked for twice in one batch is signed once: the first asker gets it.
        const answered = new Set<string>();
        return payoutIds.map((id) => {
          const result = answered.has(id) ? undefined : results.get(id);
          answered.add(id);
          return result ?? 'skipped';
        });
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
}
