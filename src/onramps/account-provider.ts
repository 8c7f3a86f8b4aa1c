import type { EntityManager } from '@mikro-orm/postgresql';

/** The bank provider that issued an account number; null when no account of ours has it. */
export async function accountProviderOf(
  em: EntityManager,
  accountNumber: string,
): Promise<string | null> {
  const [row] = await em
    .getConnection()
    .execute<{ provider: string }[]>(
      'select provider from virtual_accounts where account_number = ?',
      [accountNumber],
    );
  return row?.provider ?? null;
}

/**
 * A scalar subquery naming the provider of the account `accountNumberSql` evaluates to, for
 * other modules' statements (the deposits module's return sender): null for no account.
 */
export function accountProviderSubquery(accountNumberSql: string): string {
  return `(select va.provider from virtual_accounts va where va.account_number = ${accountNumberSql})`;
}
