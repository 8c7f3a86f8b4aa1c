import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { afterCursor, NEWEST_FIRST } from '../db/keyset';
import { WithdrawalAddress } from './withdrawal-address.entity';
import { parseChain, validateEvmAddress } from '../domain/addresses';
import { DomainError, ErrorCode, invalidParameter, missingParameter } from '../domain/errors';
import { newId } from '../domain/ids';
import type { Cursor } from '../domain/pagination';
import { WITHDRAWAL_ADDRESS_LIMIT } from '../domain/withdrawal-addresses';
import { writeMerchantEvent } from '../events';
import type { AuditLogService } from '../audit';
import {
  claimDueActivations,
  countLiveEntries,
  liveEntry,
  lockAddressBook,
  markDeleted,
} from './withdrawal-address-store';
import { presentWithdrawalAddress } from './withdrawal-address-view';
import type { SanctionsScreen } from '../domain/sanctions-screening';

export interface NewWithdrawalAddressInput {
  chain?: unknown;
  address?: unknown;
  label?: unknown;
}

/** Who acts: the merchant and the secret key (recorded in the audit log as `api_key:<id>`). */
export interface AddressBookActor {
  merchantId: string;
  keyId: string;
}

const LABEL_MAX = 100;

/**
 * The withdrawal address book: entries become usable `delaySeconds` after they are added.
 * Every change writes its webhook event and audit entry in its own transaction, so a merchant
 * hears of an addition (perhaps by a leaked key) before the address can receive anything.
 */
export class WithdrawalAddressBookService {
  constructor(
    private readonly clock: Clock,
    private readonly auditLog: AuditLogService,
    private readonly delaySeconds: number,
    private readonly sanctions: SanctionsScreen,
  ) {}

  /** `created: false` when the address was already in the book: that entry, its delay kept. */
  async add(
    em: EntityManager,
    actor: AddressBookActor,
    input: NewWithdrawalAddressInput,
  ): Promise<{ entry: WithdrawalAddress; created: boolean }> {
    const valid = validateEntry(input);
    await this.sanctions.refuseListed(em, {
      merchantId: actor.merchantId,
      place: 'address_book',
      field: 'address',
      address: valid.address,
      chain: valid.chain,
    });
    return em.fork().transactional(async (tx) => {
      await lockAddressBook(tx, actor.merchantId);
      const existing = await liveEntry(tx, actor.merchantId, valid.chain, valid.address);
      if (existing) return { entry: existing, created: false };
      if ((await countLiveEntries(tx, actor.merchantId)) >= WITHDRAWAL_ADDRESS_LIMIT) {
        throw new DomainError(
          ErrorCode.LimitExceeded,
          `The address book holds at most ${WITHDRAWAL_ADDRESS_LIMIT} addresses; remove one first`,
        );
      }
      const now = this.clock.now();
      const entry = Object.assign(new WithdrawalAddress(), {
        id: newId('wa', this.clock),
        merchantId: actor.merchantId,
        ...valid,
        createdAt: now,
        activeAt: new Date(now.getTime() + this.delaySeconds * 1000),
        activatedAt: null,
        deletedAt: null,
      });
      tx.persist(entry);
      await tx.flush();
      await this.announce(tx, actor, 'withdrawal_address.created', entry, now);
      return { entry, created: true };
    });
  }

  /** Removes at once; an unknown, another merchant's or an already removed id is 404. */
  async remove(em: EntityManager, actor: AddressBookActor, id: string): Promise<WithdrawalAddress> {
    return em.fork().transactional(async (tx) => {
      const now = this.clock.now();
      const entry = await markDeleted(tx, actor.merchantId, id, now);
      if (!entry) throw new DomainError(ErrorCode.NotFound, `No withdrawal address ${id}`);
      await this.announce(tx, actor, 'withdrawal_address.deleted', entry, now);
      return entry;
    });
  }

  async list(
    em: EntityManager,
    merchantId: string,
    page: { offset: number; limit: number },
  ): Promise<{ entries: WithdrawalAddress[]; total: number }> {
    const [entries, total] = await em.findAndCount(
      WithdrawalAddress,
      { merchantId, deletedAt: null },
      { orderBy: NEWEST_FIRST, offset: page.offset, limit: page.limit },
    );
    return { entries, total };
  }

  /** Keyset page for GraphQL connections, strictly after the cursor. */
  async listAfter(
    em: EntityManager,
    merchantId: string,
    after: Cursor | null,
    limit: number,
  ): Promise<{ entries: WithdrawalAddress[]; total: number; hasMore: boolean }> {
    const live: FilterQuery<WithdrawalAddress> = { merchantId, deletedAt: null };
    const [rows, total] = await Promise.all([
      em.find(WithdrawalAddress, afterCursor(live, after), {
        orderBy: NEWEST_FIRST,
        limit: limit + 1,
      }),
      em.count(WithdrawalAddress, live),
    ]);
    return { entries: rows.slice(0, limit), total, hasMore: rows.length > limit };
  }

  /**
   * The activation job's work: writes `withdrawal_address.activated` for each entry whose
   * delay has passed, in the transaction that marks it, so each is announced exactly once.
   * Status does not wait for this: it is computed from the clock.
   */
  async announceActivations(em: EntityManager, limit = 100): Promise<number> {
    return em.fork().transactional(async (tx) => {
      const now = this.clock.now();
      const due = await claimDueActivations(tx, now, limit);
      for (const entry of due) {
        await writeMerchantEvent(tx, {
          kind: 'withdrawal_address.activated',
          merchantId: entry.merchantId,
          data: { ...presentWithdrawalAddress(entry, now) },
          createdAt: now,
        });
      }
      return due.length;
    });
  }

  private async announce(
    tx: EntityManager,
    actor: AddressBookActor,
    kind: 'withdrawal_address.created' | 'withdrawal_address.deleted',
    entry: WithdrawalAddress,
    now: Date,
  ): Promise<void> {
    const view = { ...presentWithdrawalAddress(entry, now) };
    await writeMerchantEvent(tx, {
      kind,
      merchantId: actor.merchantId,
      data: view,
      createdAt: now,
    });
    const created = kind === 'withdrawal_address.created';
    await this.auditLog.record(tx, {
      actor: `api_key:${actor.keyId}`,
      action: created ? 'withdrawal_address.add' : 'withdrawal_address.remove',
      targetType: 'withdrawal_address',
      targetId: entry.id,
      before: created ? null : { ...view, status: withdrawalAddressStatusBefore(entry, now) },
      after: created ? view : null,
    });
  }
}

/** What a removed entry was just before its removal (its view says DELETED). */
function withdrawalAddressStatusBefore(entry: WithdrawalAddress, now: Date): string {
  return presentWithdrawalAddress({ ...entry, deletedAt: null }, now).status;
}

function validateEntry(input: NewWithdrawalAddressInput): {
  chain: string;
  address: string;
  label: string | null;
} {
  for (const field of ['chain', 'address'] as const) {
    if (input[field] === undefined || input[field] === null) throw missingParameter(field);
    if (typeof input[field] !== 'string') throw invalidParameter(field, 'must be a string');
  }
  const chain = parseChain(input.chain as string);
  if (!chain) throw invalidParameter('chain', 'must be BASE, ETHEREUM (or ETH) or POLYGON');
  const address = validateEvmAddress(input.address as string, chain, 'address');
  const label = input.label ?? null;
  if (label !== null && (typeof label !== 'string' || label.length > LABEL_MAX)) {
    throw invalidParameter('label', `must be a string of at most ${LABEL_MAX} characters`);
  }
  return { chain, address, label: label as string | null };
}
