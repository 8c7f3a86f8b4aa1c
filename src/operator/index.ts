/**
 * The operator module's entry point: what transports, jobs and other modules may use.
 * Everything else in this folder is the module's own.
 */
export { AuditLogService } from './audit-log.service';
export type { AuditEntry } from './audit-log.service';
export { depositSnapshot } from './audit-snapshots';
export { OperatorTokenService } from './operator-token.service';
export type { OperatorPrincipal } from './operator-token.service';
export { OperatorService } from './operator.service';
