import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { afterCursor, NEWEST_FIRST } from '../db/keyset';
import { Deposit } from '../db/entities/deposit.entity';
import { DomainError, ErrorCode } from '../domain/errors';
import type { DepositFilter } from '../domain/deposit-filter';
import type { Cursor } from '../domain/pagination';

function whereOf(merchantId: string, filter: DepositFilter): FilterQuery<Deposit> {
  const createdAt: Record<string, Date> = {};
  if (filter.createdFrom) createdAt.$gte = filter.createdFrom;
  if (filter.createdBefore) createdAt.$lt = filter.createdBefore;
  return {
    merchantId,
    ...(filter.onrampId ? { onrampId: filter.onrampId } : {}),
    ...(filter.status ? { status: filter.status } : {}),
    ...(Object.keys(createdAt).length > 0 ? { createdAt } : {}),
    ...(filter.updatedSince ? { updatedAt: { $gte: filter.updatedSince } } : {}),
  } as FilterQuery<Deposit>;
}

/** Reading deposits for polling: newest first (created_at desc, then id desc). */
export class DepositQueryService {
  async find(em: EntityManager, merchantId: string, depositId: string): Promise<Deposit | null> {
    return em.findOne(Deposit, { id: depositId, merchantId });
  }

  /** Another merchant's id is 404 like an unknown one. */
  async get(em: EntityManager, merchantId: string, depositId: string): Promise<Deposit> {
    const deposit = await this.find(em, merchantId, depositId);
    if (!deposit) throw new DomainError(ErrorCode.NotFound, `No deposit ${depositId}`);
    return deposit;
  }

  async list(
    em: EntityManager,
    merchantId: string,
    filter: DepositFilter,
    page: { offset: number; limit: number },
  ): Promise<{ deposits: Deposit[]; total: number }> {
    const [deposits, total] = await em.findAndCount(Deposit, whereOf(merchantId, filter), {
      orderBy: NEWEST_FIRST,
      offset: page.offset,
      limit: page.limit,
    });
    return { deposits, total };
  }

  /** Keyset page for GraphQL connections, strictly after the cursor. */
  async listAfter(
    em: EntityManager,
    merchantId: string,
    filter: DepositFilter,
    after: Cursor | null,
    limit: number,
  ): Promise<{ deposits: Deposit[]; total: number; hasMore: boolean }> {
    const base = whereOf(merchantId, filter);
    const where = afterCursor(base, after);
    const [rows, total] = await Promise.all([
      em.find(Deposit, where as FilterQuery<Deposit>, { orderBy: NEWEST_FIRST, limit: limit + 1 }),
      em.count(Deposit, base),
    ]);
    return { deposits: rows.slice(0, limit), total, hasMore: rows.length > limit };
  }
}
