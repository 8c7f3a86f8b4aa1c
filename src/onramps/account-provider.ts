import type { EntityManager } from '@mikro-orm/postgresql';

export interface AccountHolder {
  /** The bank provider that issued the number. */
  provider: string;
  /** When its latest hand-out to an onramp began (null: never handed out). */
  assignedAt: Date | null;
}

/** Who issued an account number and when it was last handed out; null: no account of ours. */
export async function accountProviderOf(
  em: EntityManager,
  accountNumber: string,
): Promise<AccountHolder | null> {
  const [row] = await em
    .getConnection()
    .execute<{ provider: string; assigned_at: Date | string | null }[]>(
      `select va.provider,
            (select max(a.assigned_at) from virtual_account_assignments a
              where a.account_number = va.account_number) as assigned_at
       from virtual_accounts va where va.account_number = ?`,
      [accountNumber],
    );
  if (!row) return null;
  return {
    provider: row.provider,
    assignedAt: row.assigned_at === null ? null : new Date(row.assigned_at),
  };
}

/**
 * A scalar subquery naming the provider of the account `accountNumberSql` evaluates to, for
 * other modules' statements (the deposits module's return sender): null for no account.
 */
export function accountProviderSubquery(accountNumberSql: string): string {
  return `(select va.provider from virtual_accounts va where va.account_number = ${accountNumberSql})`;
}
