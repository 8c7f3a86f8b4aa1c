/**
 * The audit module's entry point: the operator's and merchants' audit log, a shared core every
 * module may write to in its own transaction (so an action and its entry commit together).
 */
export { AuditLogService } from './audit-log.service';
export type { AuditEntry } from './audit-log.service';
