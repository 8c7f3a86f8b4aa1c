import { DEPOSIT_STATUSES, type DepositStatus } from '../domain/deposit-state-machine';
import { ngnHoldingOf, type LedgerAccountSpec } from '../domain/ledger';
import { lit, list } from '../ledger';

/** Where a deposit's NGN waits before conversion, per status (shared by the deposit checks). */
export interface Holding {
  account: LedgerAccountSpec;
  /** The (unconverted) statuses whose NGN the account holds. */
  statuses: DepositStatus[];
}

/** The NGN holding accounts, from the domain's `ngnHoldingOf`. */
export const HOLDINGS: readonly Holding[] = (() => {
  const byAccount = new Map<string, Holding>();
  for (const status of DEPOSIT_STATUSES) {
    const account = ngnHoldingOf(status, false);
    if (!account) continue;
    const holding = byAccount.get(account.id) ?? { account, statuses: [] };
    holding.statuses.push(status);
    byAccount.set(account.id, holding);
  }
  return [...byAccount.values()];
})();
export const HOLDING_IDS = HOLDINGS.map((h) => h.account.id);

/** SQL: the account holding the NGN of a deposit in `status` (null once converted). */
export function holdingOfSql(status: string, converted: string): string {
  const arms = HOLDINGS.map(
    (h) => `when ${status} in (${list(h.statuses)}) then ${lit(h.account.id)}`,
  );
  return `(case when ${converted} then null::text ${arms.join(' ')} else null::text end)`;
}
