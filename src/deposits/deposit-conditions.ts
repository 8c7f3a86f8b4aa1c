import type { ReadScope } from '../context/read-scope';
import type { DepositFilter } from '../domain/deposit-filter';

/** A WHERE clause over `deposits` aliased "d0", with its `?` parameters in order. */
export interface DepositConditions {
  sql: string;
  params: unknown[];
}

/**
 * The scope's conditions first (the merchant; a client secret's onramp), then the filter's.
 * Every deposit read builds its WHERE here, so none can leave the scope out.
 */
export function depositConditions(
  scope: ReadScope,
  filter: DepositFilter & { id?: string },
): DepositConditions {
  const sql: string[] = [];
  const params: unknown[] = [];
  const add = (condition: string, value: unknown) => {
    sql.push(condition);
    params.push(value);
  };
  if (filter.id !== undefined) add('"d0"."id" = ?', filter.id);
  if (scope.merchantId !== null) add('"d0"."merchant_id" = ?', scope.merchantId);
  if (scope.onrampId !== null) add('"d0"."onramp_id" = ?', scope.onrampId);
  // A listing's onramp was checked against the scope already (`listingOnramp`).
  if (filter.onrampId && filter.onrampId !== scope.onrampId) {
    add('"d0"."onramp_id" = ?', filter.onrampId);
  }
  if (filter.status) add('"d0"."status" = ?', filter.status);
  if (filter.createdFrom) add('"d0"."created_at" >= ?', filter.createdFrom);
  if (filter.createdBefore) add('"d0"."created_at" < ?', filter.createdBefore);
  if (filter.updatedSince) add('"d0"."updated_at" >= ?', filter.updatedSince);
  return { sql: sql.length > 0 ? sql.join(' and ') : 'true', params };
}
