import type { EntityManager } from '@mikro-orm/postgresql';
import { executeInTransaction } from '../db/locks';

/**
 * The sandbox scenarios other modules consult (risk review, rates, chain health), read here:
 * the sandbox module owns `sandbox_scenarios`. Production never calls these (each caller asks
 * only when it runs in the sandbox).
 */

/** Whether the merchant's scenario makes the risk review reject its payouts. */
export async function riskRejectScenario(tx: EntityManager, merchantId: string): Promise<boolean> {
  const [row] = await executeInTransaction<{ risk_reject: boolean }>(
    tx,
    'select risk_reject from sandbox_scenarios where merchant_id = ?',
    [merchantId],
  );
  return row?.risk_reject ?? false;
}

/** Whether the merchant's scenario has taken this chain down. */
export async function chainOutageScenario(
  em: EntityManager,
  merchantId: string,
  chain: string,
): Promise<boolean> {
  const rows = await em
    .fork()
    .getConnection()
    .execute<Array<{ down: boolean }>>(
      'select ? = any(chain_outage) as down from sandbox_scenarios where merchant_id = ?',
      [chain, merchantId],
    );
  return rows[0]?.down ?? false;
}

/**
 * A SQL expression (one parameter: the merchant id) for when the merchant's rate source went
 * down, or infinity: the rates query composes it into its own statement.
 */
export const RATE_SOURCE_DOWN_SINCE_SQL = `coalesce((select s.rate_source_down_since from sandbox_scenarios s
                      where s.merchant_id = ?), 'infinity'::timestamptz)`;
