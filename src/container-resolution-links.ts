import type { Clock } from './clock';
import type { Config } from './config';
import { publicBaseUrl } from './config-resolution-links';
import { resolutionLinkKey } from './crypto/resolution-link-key';
import { ResolutionLinkService, type DepositResolutionService } from './deposits';
import { dec } from './domain/money';
import type { AuditLogService } from './operator';

/** The payer resolution links' service, with its configuration (kept out of container.ts). */
export function resolutionLinkService(
  config: Config,
  clock: Clock,
  resolutions: DepositResolutionService,
  auditLog: AuditLogService,
): ResolutionLinkService {
  return new ResolutionLinkService(clock, resolutions, auditLog, {
    base: publicBaseUrl(config),
    key: resolutionLinkKey(config),
    returnFeeNgn: dec(config.RETURN_FEE_NGN),
  });
}
