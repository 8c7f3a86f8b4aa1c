import { merchantAccount, type MerchantBucket } from '../domain/ledger';

/** SQL building blocks shared by the ledger checks (no parameters: values are quoted here). */
export const lit = (value: string): string => `'${value.replace(/'/g, "''")}'`;
export const list = (values: readonly string[]): string => values.map(lit).join(', ');

/** A posting's signed amount: positive on the account's credit side. */
export const NET_CREDIT = `case p.direction when 'CREDIT' then p.amount else -p.amount end`;

/** SQL: the id of a merchant's account, from a merchant id expression. */
export function merchantAccountIdSql(merchantIdSql: string, bucket: MerchantBucket): string {
  const [before, after] = merchantAccount('\u0000', bucket).id.split('\u0000');
  return `(${lit(before)} || ${merchantIdSql} || ${lit(after)})`;
}

/** What an operator account holds, in its normal direction, as a `select actual`. */
export function operatorBalance(accountId: string, normalSide: 'DEBIT' | 'CREDIT'): string {
  const sign = normalSide === 'CREDIT' ? '' : '-';
  return `(select coalesce(sum(${sign}(${NET_CREDIT})), 0) as actual
             from ledger_postings p where p.account_id = ${lit(accountId)})`;
}
