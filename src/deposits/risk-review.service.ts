import { readFileSync, statSync } from 'node:fs';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { executeInTransaction } from '../db/locks';
import { newId } from '../domain/ids';
import {
  parseBlocklist,
  reviewPayout,
  type PayoutForReview,
  type RiskDecision,
} from '../domain/risk-rules';
import { riskRejectScenario } from '../sandbox/scenario-reads';
import type { SanctionsMatch } from '../domain/sanctions-screening';

/** A payout as the review reads it. */
type Payout = PayoutForReview & { id: string; depositId: string | null };

/**
 * The blocklist file, re-read when it changes: an operator adds an address and the next
 * payout sees it, without a restart. A file that stops parsing keeps the last good list and
 * says so in the error log, rather than letting everything through.
 */
export class BlocklistFile {
  private addresses: ReadonlySet<string> = new Set();
  private loadedMtimeMs = -1;

  constructor(
    private readonly path: string | undefined,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    if (path) this.load(true);
  }

  current(): ReadonlySet<string> {
    if (this.path) this.load(false);
    return this.addresses;
  }

  private load(strict: boolean): void {
    try {
      const mtimeMs = statSync(this.path!).mtimeMs;
      if (mtimeMs === this.loadedMtimeMs) return;
      this.addresses = parseBlocklist(readFileSync(this.path!, 'utf8'));
      this.loadedMtimeMs = mtimeMs;
    } catch (error) {
      if (strict) throw new Error(`RISK_BLOCKLIST_FILE ${this.path}: ${String(error)}`);
      this.onError(error);
    }
  }
}

/** Runs the risk rules on a payout and stores the decision (never exposed by the API). */
export class RiskReviewService {
  constructor(
    private readonly clock: Clock,
    private readonly blocklist: BlocklistFile,
    private readonly sandbox: boolean,
    private readonly sanctions?: SanctionsMatch,
  ) {}

  async review(tx: EntityManager, payout: Payout): Promise<RiskDecision> {
    const [decision] = await this.reviewAll(tx, [payout]);
    return decision;
  }

  /**
   * The rules on each payout of a signing batch, one decision per payout (in order), stored in
   * one statement: a signing transaction's cost must not grow a round trip per payout.
   */
  async reviewAll(tx: EntityManager, payouts: Payout[]): Promise<RiskDecision[]> {
    if (payouts.length === 0) return [];
    const rejectAll = new Map<string, boolean>();
    if (this.sandbox) {
      for (const merchantId of new Set(payouts.map((p) => p.merchantId))) {
        rejectAll.set(merchantId, await riskRejectScenario(tx, merchantId));
      }
    }
    const blocklist = this.blocklist.current();
    // The list in force at signing: a destination listed since its deposit settled pays nothing.
    const screened = this.sanctions
      ? await this.sanctions.listedAmong(
          tx,
          payouts.map((p) => p.toAddress),
        )
      : null;
    const decisions = payouts.map((payout) =>
      reviewPayout(
        {
          merchantId: payout.merchantId,
          chain: payout.chain,
          asset: payout.asset,
          toAddress: payout.toAddress,
          amount: payout.amount,
        },
        {
          blocklist,
          sandboxRejectAll: rejectAll.get(payout.merchantId) ?? false,
          sanctioned: screened?.listed,
        },
      ),
    );
    for (const [k, payout] of payouts.entries()) {
      if (!decisions[k].flagReason) continue;
      await this.sanctions!.recordFlag(tx, {
        merchantId: payout.merchantId,
        targetType: payout.depositId ? 'deposit' : 'payout',
        targetId: payout.depositId ?? payout.id,
        address: payout.toAddress,
        listDate: screened!.listDate,
        stage: 'payout_signing',
      });
    }
    // Rows travel as one JSON parameter (knex would expand an array into a list).
    const rows = payouts.map((payout, k) => ({
      id: newId('risk', this.clock),
      payout_id: payout.id,
      approved: decisions[k].approved,
      rules: decisions[k].rules,
    }));
    await executeInTransaction(
      tx,
      `insert into risk_decisions (id, payout_id, approved, rules, decided_at)
       select r.id, r.payout_id, r.approved, r.rules, ?::timestamptz
         from jsonb_to_recordset(?::jsonb) as r(id text, payout_id text, approved boolean, rules jsonb)`,
      [this.clock.now(), JSON.stringify(rows)],
    );
    return decisions;
  }
}
