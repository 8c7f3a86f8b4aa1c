import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { executeInTransaction } from '../db/locks';
import { newId } from '../domain/ids';
import type { Cursor } from '../domain/pagination';

/** Plain JSON snapshots of what an action changed (never secrets). */
export type AuditSnapshot = Record<string, unknown> | null;

export interface AuditAction {
  /**
   * Who: `operator:<name>` (admin GraphQL token), `cli:<os user>`, or `api_key:<key id>` (a
   * merchant's own change to its controls: keys, address book, settings).
   */
  actor: string;
  /** What, e.g. `merchant.freeze`, `deposit.resolve_settle`. */
  action: string;
  targetType:
    | 'merchant'
    | 'deposit'
    | 'api_key'
    | 'event'
    | 'operator_token'
    | 'deployment'
    | 'withdrawal_address';
  targetId: string;
  before: AuditSnapshot;
  after: AuditSnapshot;
}

export interface AuditEntry extends AuditAction {
  id: string;
  createdAt: Date;
}

interface AuditRow {
  id: string;
  actor: string;
  action: string;
  target_type: AuditAction['targetType'];
  target_id: string;
  before: AuditSnapshot;
  after: AuditSnapshot;
  created_at: Date | string;
}

const toEntry = (row: AuditRow): AuditEntry => ({
  id: row.id,
  actor: row.actor,
  action: row.action,
  targetType: row.target_type,
  targetId: row.target_id,
  before: row.before,
  after: row.after,
  createdAt: new Date(row.created_at),
});

/**
 * The operator audit log: one row per action, written in the action's own transaction, so an
 * action is never without its entry nor an entry without its action. Append-only (a trigger
 * refuses updates and deletes).
 */
export class AuditLogService {
  constructor(private readonly clock: Clock) {}

  async record(tx: EntityManager, action: AuditAction): Promise<AuditEntry> {
    const entry: AuditEntry = {
      ...action,
      id: newId('aud', this.clock),
      createdAt: this.clock.now(),
    };
    await executeInTransaction(
      tx,
      `insert into audit_log (id, actor, action, target_type, target_id, before, after, created_at)
       values (?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?)`,
      [
        entry.id,
        entry.actor,
        entry.action,
        entry.targetType,
        entry.targetId,
        entry.before === null ? null : JSON.stringify(entry.before),
        entry.after === null ? null : JSON.stringify(entry.after),
        entry.createdAt,
      ],
    );
    return entry;
  }

  /** Newest first; `targetId` narrows to one merchant, deposit, key or event. */
  async list(
    em: EntityManager,
    options: { targetId?: string | null; after?: Cursor | null; limit: number },
  ): Promise<{ entries: AuditEntry[]; hasMore: boolean }> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (options.targetId) {
      where.push('target_id = ?');
      params.push(options.targetId);
    }
    if (options.after) {
      where.push('(created_at, id) < (?, ?)');
      params.push(options.after.createdAt, options.after.id);
    }
    const rows = await em.getConnection().execute<AuditRow[]>(
      `select id, actor, action, target_type, target_id, before, after, created_at
         from audit_log ${where.length ? `where ${where.join(' and ')}` : ''}
        order by created_at desc, id desc limit ?`,
      [...params, options.limit + 1],
    );
    return {
      entries: rows.slice(0, options.limit).map(toEntry),
      hasMore: rows.length > options.limit,
    };
  }
}
