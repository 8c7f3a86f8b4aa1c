import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import type { AuditLogService } from '../audit';
import { DomainError, ErrorCode } from '../domain/errors';
import { sanctionsKey, type SanctionsList } from '../domain/sanctions-list';
import type {
  ListedAddresses,
  SanctionsFlag,
  SanctionsMatch,
  SanctionsScreen,
  ScreenedRequest,
} from '../domain/sanctions-screening';
import {
  listedAmong,
  lockListInForce,
  readListInForce,
  replaceList,
  type ListInForce,
} from './sanctions-store';

/** Who acts on the list in the audit log when nobody does: screening itself, or a startup. */
export const SCREENING_ACTOR = 'system:sanctions_screening';
export const STARTUP_ACTOR = 'system:startup';

/** A list to install, with where it came from. */
export interface ListSubmission {
  list: SanctionsList;
  /** The text's SHA-256: a startup that finds the same list in force changes nothing. */
  contentSha256: string;
  /** Shown in the status and the audit log: a file path, `shipped snapshot`, `admin GraphQL`. */
  description: string;
}

export function submissionOf(list: SanctionsList, text: string, description: string) {
  const contentSha256 = createHash('sha256').update(text).digest('hex');
  return { list, contentSha256, description } satisfies ListSubmission;
}

/**
 * The sanctions list in force and the screening against it (API.md, v0.3). The list lives in
 * the database (src/sanctions/sanctions-store.ts) and every check reads it there, one indexed
 * lookup, so an update applies in every process as soon as it commits: no cache to go stale.
 */
export class SanctionsService implements SanctionsScreen, SanctionsMatch {
  constructor(
    private readonly clock: Clock,
    private readonly auditLog: AuditLogService,
  ) {}

  status(em: EntityManager): Promise<ListInForce | null> {
    return readListInForce(em);
  }

  listedAmong(em: EntityManager, addresses: readonly string[]): Promise<ListedAddresses> {
    return listedAmong(em, [...new Set(addresses.map(sanctionsKey))]);
  }

  async refuseListed(em: EntityManager, request: ScreenedRequest): Promise<void> {
    const { listDate, listed } = await this.listedAmong(em, [request.address]);
    if (!listed.has(sanctionsKey(request.address))) return;
    await em.fork().transactional((tx) =>
      this.auditLog.record(tx, {
        actor: SCREENING_ACTOR,
        action: 'sanctions.refuse',
        targetType: 'merchant',
        targetId: request.merchantId,
        before: null,
        after: {
          place: request.place,
          field: request.field,
          address: request.address,
          chain: request.chain,
          list_date: listDate,
        },
      }),
    );
    throw new DomainError(
      ErrorCode.AddressSanctioned,
      `${request.field} ${request.address} is on the sanctions list in force (OFAC SDN, list of ${listDate})`,
    );
  }

  async recordFlag(tx: EntityManager, flag: SanctionsFlag): Promise<void> {
    await this.auditLog.record(tx, {
      actor: SCREENING_ACTOR,
      action: flag.targetType === 'deposit' ? 'sanctions.flag_deposit' : 'sanctions.stop_payout',
      targetType: flag.targetType === 'deposit' ? 'deposit' : 'merchant',
      targetId: flag.targetType === 'deposit' ? flag.targetId : flag.merchantId,
      before: null,
      after: {
        merchant_id: flag.merchantId,
        [`${flag.targetType}_id`]: flag.targetId,
        address: flag.address,
        stage: flag.stage,
        list_date: flag.listDate,
      },
    });
  }

  /**
   * An operator's update (`onramp sanctions update FILE`, admin GraphQL): replaces whatever is
   * in force. The list's date is the file's `# date:` line, else today (UTC).
   */
  async replace(
    em: EntityManager,
    actor: string,
    submission: ListSubmission,
  ): Promise<ListInForce> {
    return em.fork().transactional(async (tx) => {
      const before = await lockListInForce(tx);
      return this.install(tx, actor, 'operator', submission, before);
    });
  }

  /**
   * At a process's start: the shipped snapshot (or SANCTIONS_LIST_PATH's file) goes in force
   * when no list is, or when the one in force came from a startup too, differs, and is not
   * newer. An operator's update stays until the next update: a restart never undoes it.
   */
  async installAtStartup(
    em: EntityManager,
    submission: ListSubmission,
  ): Promise<{ installed: boolean; inForce: ListInForce }> {
    return em.fork().transactional(async (tx) => {
      const before = await lockListInForce(tx);
      const date = this.dateOf(submission);
      const keep =
        before &&
        (before.origin === 'operator' ||
          before.contentSha256 === submission.contentSha256 ||
          before.listDate > date);
      if (keep) return { installed: false, inForce: before };
      return {
        installed: true,
        inForce: await this.install(tx, STARTUP_ACTOR, 'startup', submission, before),
      };
    });
  }

  private async install(
    tx: EntityManager,
    actor: string,
    origin: ListInForce['origin'],
    submission: ListSubmission,
    before: ListInForce | null,
  ): Promise<ListInForce> {
    const inForce: ListInForce = {
      listDate: this.dateOf(submission),
      addressCount: submission.list.addresses.length,
      contentSha256: submission.contentSha256,
      origin,
      description: submission.description,
      installedAt: this.clock.now(),
      installedBy: actor,
    };
    await replaceList(tx, { ...inForce, addresses: submission.list.addresses });
    await this.auditLog.record(tx, {
      actor,
      action: 'sanctions.replace_list',
      targetType: 'deployment',
      targetId: 'sanctions_list',
      before: before ? auditView(before) : null,
      after: auditView(inForce),
    });
    return inForce;
  }

  private dateOf(submission: ListSubmission): string {
    return submission.list.listDate ?? this.clock.now().toISOString().slice(0, 10);
  }
}

function auditView(list: ListInForce): Record<string, unknown> {
  return {
    list_date: list.listDate,
    address_count: list.addressCount,
    content_sha256: list.contentSha256,
    origin: list.origin,
    description: list.description,
  };
}
