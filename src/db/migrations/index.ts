import { Migration20261122000100_foundation } from './Migration20261122000100_foundation';
import { Migration20261122000200_onramps } from './Migration20261122000200_onramps';
import { Migration20261122000300_deposits } from './Migration20261122000300_deposits';
import { Migration20261122000400_payouts } from './Migration20261122000400_payouts';
import { Migration20261122000500_webhooks } from './Migration20261122000500_webhooks';
import { Migration20261122000600_dashboard_sessions } from './Migration20261122000600_dashboard_sessions';
import { Migration20261122000700_operations } from './Migration20261122000700_operations';
import { Migration20261124000800_credential_revocations } from './Migration20261124000800_credential_revocations';
import { Migration20261124000900_secrets_at_rest } from './Migration20261124000900_secrets_at_rest';
import { Migration20261124170000_sandbox_isolation } from './Migration20261124170000_sandbox_isolation';
import { Migration20261125000100_settlement_batches } from './Migration20261125000100_settlement_batches';
import { Migration20261125000200_lean_ledger_events } from './Migration20261125000200_lean_ledger_events';
import { Migration20261125000400_lean_events } from './Migration20261125000400_lean_events';
import { Migration20261125000500_events_without_foreign_keys } from './Migration20261125000500_events_without_foreign_keys';
import { Migration20261125100100_api_key_scopes } from './Migration20261125100100_api_key_scopes';
import { Migration20261125100200_webhook_endpoints } from './Migration20261125100200_webhook_endpoints';
import { Migration20261125100300_withdrawal_addresses } from './Migration20261125100300_withdrawal_addresses';
import { Migration20261125100400_report_indexes } from './Migration20261125100400_report_indexes';
import { Migration20261125110100_payer_rules } from './Migration20261125110100_payer_rules';
import { Migration20261125110200_deposit_returns } from './Migration20261125110200_deposit_returns';
import { Migration20261125120000_resolution_links } from './Migration20261125120000_resolution_links';
import { Migration20261125120200_rates_published } from './Migration20261125120200_rates_published';
import { Migration20261128150100_settings_pending } from './Migration20261128150100_settings_pending';
import { Migration20261128150200_allowed_origins } from './Migration20261128150200_allowed_origins';
import { Migration20261128150300_reversal_during_return } from './Migration20261128150300_reversal_during_return';
import { Migration20261128150700_resolution_link_attempts } from './Migration20261128150700_resolution_link_attempts';
import { Migration20261128170000_bank_providers } from './Migration20261128170000_bank_providers';
import { Migration20261128170100_onramp_customer } from './Migration20261128170100_onramp_customer';
import { Migration20261128170200_fx_venue_orders } from './Migration20261128170200_fx_venue_orders';
import { Migration20261129100000_reserves } from './Migration20261129100000_reserves';
import { Migration20261129110100_sanctions } from './Migration20261129110100_sanctions';
import { Migration20261129120100_payout_reorgs } from './Migration20261129120100_payout_reorgs';
import { Migration20261129140100_trace_context } from './Migration20261129140100_trace_context';

/** Listed explicitly so migrations run the same from `src` (tests) and `dist` (processes). */
export const migrationsList = [
  { name: 'Migration20261122000100_foundation', class: Migration20261122000100_foundation },
  { name: 'Migration20261122000200_onramps', class: Migration20261122000200_onramps },
  { name: 'Migration20261122000300_deposits', class: Migration20261122000300_deposits },
  { name: 'Migration20261122000400_payouts', class: Migration20261122000400_payouts },
  { name: 'Migration20261122000500_webhooks', class: Migration20261122000500_webhooks },
  {
    name: 'Migration20261122000600_dashboard_sessions',
    class: Migration20261122000600_dashboard_sessions,
  },
  { name: 'Migration20261122000700_operations', class: Migration20261122000700_operations },
  {
    name: 'Migration20261124000800_credential_revocations',
    class: Migration20261124000800_credential_revocations,
  },
  {
    name: 'Migration20261124000900_secrets_at_rest',
    class: Migration20261124000900_secrets_at_rest,
  },
  {
    name: 'Migration20261124170000_sandbox_isolation',
    class: Migration20261124170000_sandbox_isolation,
  },
  {
    name: 'Migration20261125000100_settlement_batches',
    class: Migration20261125000100_settlement_batches,
  },
  {
    name: 'Migration20261125000200_lean_ledger_events',
    class: Migration20261125000200_lean_ledger_events,
  },
  { name: 'Migration20261125000400_lean_events', class: Migration20261125000400_lean_events },
  {
    name: 'Migration20261125000500_events_without_foreign_keys',
    class: Migration20261125000500_events_without_foreign_keys,
  },
  { name: 'Migration20261125100100_api_key_scopes', class: Migration20261125100100_api_key_scopes },
  {
    name: 'Migration20261125100200_webhook_endpoints',
    class: Migration20261125100200_webhook_endpoints,
  },
  {
    name: 'Migration20261125100300_withdrawal_addresses',
    class: Migration20261125100300_withdrawal_addresses,
  },
  { name: 'Migration20261125100400_report_indexes', class: Migration20261125100400_report_indexes },
  { name: 'Migration20261125110100_payer_rules', class: Migration20261125110100_payer_rules },
  {
    name: 'Migration20261125110200_deposit_returns',
    class: Migration20261125110200_deposit_returns,
  },
  {
    name: 'Migration20261125120000_resolution_links',
    class: Migration20261125120000_resolution_links,
  },
  {
    name: 'Migration20261125120200_rates_published',
    class: Migration20261125120200_rates_published,
  },
  {
    name: 'Migration20261128150100_settings_pending',
    class: Migration20261128150100_settings_pending,
  },
  {
    name: 'Migration20261128150200_allowed_origins',
    class: Migration20261128150200_allowed_origins,
  },
  {
    name: 'Migration20261128150300_reversal_during_return',
    class: Migration20261128150300_reversal_during_return,
  },
  {
    name: 'Migration20261128150700_resolution_link_attempts',
    class: Migration20261128150700_resolution_link_attempts,
  },
  {
    name: 'Migration20261128170000_bank_providers',
    class: Migration20261128170000_bank_providers,
  },
  {
    name: 'Migration20261128170100_onramp_customer',
    class: Migration20261128170100_onramp_customer,
  },
  {
    name: 'Migration20261128170200_fx_venue_orders',
    class: Migration20261128170200_fx_venue_orders,
  },
  {
    name: 'Migration20261129100000_reserves',
    class: Migration20261129100000_reserves,
  },
  {
    name: 'Migration20261129110100_sanctions',
    class: Migration20261129110100_sanctions,
  },
  {
    name: 'Migration20261129120100_payout_reorgs',
    class: Migration20261129120100_payout_reorgs,
  },
  {
    name: 'Migration20261129140100_trace_context',
    class: Migration20261129140100_trace_context,
  },
];
