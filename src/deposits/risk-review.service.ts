import { readFileSync, statSync } from 'node:fs';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { executeInTransaction } from '../db/locks';
import type { Payout } from '../db/entities/payout.entity';
import { newId } from '../domain/ids';
import { parseBlocklist, reviewPayout, type RiskDecision } from '../domain/risk-rules';
import { riskRejectScenario } from '../sandbox';

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
  ) {}

  async review(tx: EntityManager, payout: Payout): Promise<RiskDecision> {
    const sandboxRejectAll = this.sandbox ? await riskRejectScenario(tx, payout.merchantId) : false;
    const decision = reviewPayout(
      {
        merchantId: payout.merchantId,
        chain: payout.chain,
        asset: payout.asset,
        toAddress: payout.toAddress,
        amount: payout.amount,
      },
      { blocklist: this.blocklist.current(), sandboxRejectAll },
    );
    await executeInTransaction(
      tx,
      'insert into risk_decisions (id, payout_id, approved, rules, decided_at) values (?, ?, ?, ?, ?)',
      [
        newId('risk', this.clock),
        payout.id,
        decision.approved,
        JSON.stringify(decision.rules),
        this.clock.now(),
      ],
    );
    return decision;
  }
}
