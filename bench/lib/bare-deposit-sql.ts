/**
 * The statements the gateway runs for `GET /v1/deposits/{id}` with a secret key, as MikroORM
 * sends them (`?` for the values it inlines): the API key lookup (`API_KEY_SQL` of
 * src/merchants/auth.service.ts; the gateway answers it from memory while its key cache holds
 * the key) and the merchant-scoped deposit read (`DepositQueryService.findView`). Copied here so
 * the bare handler loads no ORM; test/unit/bench-bare-sql.test.ts keeps them equal.
 */
export const KEY_SQL =
  'select "a0"."id", "a0"."merchant_id", "a0"."environment", "a0"."revoked_at", ' +
  '"a0"."scopes", "a0"."allowed_ips" ' +
  'from "api_keys" as "a0" where "a0"."key_hash" = ? limit 1';

export const DEPOSIT_SQL =
  'select "d0"."id", "d0"."onramp_id", "d0"."merchant_id", "d0"."payment_reference", ' +
  '"d0"."user_email", "d0"."amount_ngn", "d0"."bank_reference", "d0"."rate_id", ' +
  '"d0"."amount_asset", "d0"."asset", "d0"."chain", "d0"."tx_hash", "d0"."status", ' +
  '"d0"."failure_reason", "d0"."flag_reason", "d0"."sender_name", "d0"."sender_account_last4", ' +
  '"d0"."sender_bank", "d0"."created_at", "d0"."settled_at", "d0"."updated_at" ' +
  'from "deposits" as "d0" where "d0"."id" = ? and "d0"."merchant_id" = ? limit 1';
