#!/usr/bin/env bash
# The SQL half of docs/architecture.md's layout rules (the import half is dependency-cruiser's,
# .dependency-cruiser.cjs), checked with grep. Prints every breach and exits 1 if there is one.
# Migrations are exempt (they are the schema's history).
#  1. no SQL names a table outside the module that owns it (the map below is the ownership),
#     except in src/reconciliation, the read-only cross-check of the modules against each other;
#  2. nothing in src/reconciliation writes (no insert, update, delete, truncate, or DDL).
set -u
cd "$(dirname "$0")/.."
breaches=0
report() { [ -z "$1" ] && return; printf '%s\n' "$1"; breaches=$((breaches + $(printf '%s\n' "$1" | wc -l))); }

echo "== SQL on another module's table"
declare -A OWNER=(
  [deposits]=deposits [deposit_transitions]=deposits [deposit_daily_volume]=deposits
  [unmatched_transfers]=deposits [risk_decisions]=deposits [deposit_returns]=deposits
  [deposit_resolution_links]=deposits
  [ledger_accounts]=ledger [ledger_transactions]=ledger [ledger_postings]=ledger
  [reserve_holds]=ledger [merchant_ledger_terms]=ledger
  [onramps]=onramps [virtual_accounts]=onramps [virtual_account_assignments]=onramps
  [merchant_daily_onramps]=onramps
  [webhook_endpoints]=webhooks [webhook_deliveries]=webhooks [webhook_attempts]=webhooks
  [events]=events
  [payouts]=payouts [payout_transactions]=payouts [withdrawals]=payouts [hot_wallet_nonces]=payouts
  [withdrawal_addresses]=payouts
  [merchants]=merchants [api_keys]=merchants [dashboard_sessions]=merchants
  [audit_log]=audit [operator_tokens]=operator
  [rates]=rates
  [sandbox_scenarios]=sandbox [sandbox_auto_deposits]=sandbox [deployment_switches]=sandbox
  [idempotency_keys]=system [rate_limit_windows]=system [chain_status]=system
  [sanctions_list]=sanctions [sanctioned_addresses]=sanctions
)
for table in $(printf '%s\n' "${!OWNER[@]}" | sort); do
  owner=${OWNER[$table]}
  report "$(grep -rlE "(from|join|into|update|delete from|table)\s+\"?$table\"?([^a-z_]|$)" src jobs --include=*.ts |
    grep -v "db/migrations\|^src/$owner/\|^src/reconciliation/" | sed "s#^#$table (owned by $owner): #")"
done
echo "== writes in src/reconciliation"
report "$(grep -rniE "(insert\s+into|update\s+\"?[a-z_]+\"?\s+set|delete\s+from|truncate|alter\s+table|create\s+table|drop\s+table)" src/reconciliation --include=*.ts)"

echo "== $breaches breach(es)"
[ "$breaches" -eq 0 ]
