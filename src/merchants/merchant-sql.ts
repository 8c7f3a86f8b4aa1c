/**
 * SQL fragments over the merchants module's tables, for statements other modules compose
 * (a deposit's arrival read decides on the merchant's status in the same round trip).
 */

/** Scalar: the status of the merchant with id `idSql` (ACTIVE or FROZEN), null if none. */
export function merchantStatusSql(idSql: string): string {
  return `(select m.status from merchants m where m.id = ${idSql})`;
}
