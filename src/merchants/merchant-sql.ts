/**
 * SQL fragments over the merchants module's tables, for statements other modules compose
 * (a deposit's arrival read decides on the merchant's status in the same round trip).
 */

/** Scalar: the status of the merchant with id `idSql` (ACTIVE or FROZEN), null if none. */
export function merchantStatusSql(idSql: string): string {
  return `(select m.status from merchants m where m.id = ${idSql})`;
}

/**
 * Scalar jsonb: the payment rules of merchant `idSql` as stored
 * (`{underpayment, overpayment, payer_name_check}`, each null when never set) with the
 * merchant's `pending_settings`; `paymentRulesOf` and `withDueChanges` in the domain turn it
 * into the rules that apply.
 */
export function merchantPaymentRulesSql(idSql: string): string {
  return `(select jsonb_build_object('underpayment', m.underpayment, 'overpayment', m.overpayment,
            'payer_name_check', m.payer_name_check, 'pending_settings', m.pending_settings)
            from merchants m where m.id = ${idSql})`;
}

/**
 * Scalar text[]: the browser origins merchant `idSql` allows client secrets from (its
 * settings' `allowed_origins`), read with a client secret's lookup in the same statement.
 */
export function merchantAllowedOriginsSql(idSql: string): string {
  return `(select m.allowed_origins from merchants m where m.id = ${idSql})`;
}
