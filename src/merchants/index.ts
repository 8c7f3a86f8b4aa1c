/**
 * The merchants module's entry point: what transports, jobs and other modules may use.
 * Everything else in this folder is the module's own.
 */
export { AuthService, requireSecretKey } from './auth.service';
export { DashboardSessionService } from './dashboard-session.service';
export { ApiKeyService, MAX_LIVE_KEYS } from './api-key.service';
export type { ApiKeyView } from './api-key.service';
export { MerchantService } from './merchant.service';
export { merchantSnapshot } from './merchant-snapshot';
export { lockMerchant } from './merchant-lock';
export { findMerchant, getMerchant } from './merchant-reads';
export type { MerchantRecord } from './merchant-lock';
export { moveMerchant } from './merchant-transitions';
export type { IssuedKey } from './merchant.service';
export { liveApiKeys, liveDashboardSessions } from './credential-reads';
export {
  merchantAllowedOriginsSql,
  merchantPaymentRulesSql,
  merchantStatusSql,
} from './merchant-sql';
export { MerchantSettingsService } from './merchant-settings.service';
export type {
  MerchantSettingsPatch,
  MerchantSettingsView,
  SettingsActor,
} from './merchant-settings.service';
