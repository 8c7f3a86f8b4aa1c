import { LockMode } from '@mikro-orm/core';
import { afterCursor, NEWEST_FIRST } from '../db/keyset';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { DomainError, ErrorCode } from '../domain/errors';
import { newId, newPaymentReference, newSecret } from '../domain/ids';
import { lagosDay } from '../domain/lagos-day';
import {
  parseCreateOnramp,
  type CreateOnrampInput,
  type ValidOnrampRequest,
} from '../domain/onramp-input';
import { MerchantStatus } from '../domain/merchant-status';
import { Onramp } from './onramp.entity';
import { OnrampStatus, OnrampType, SettlementMode } from '../domain/onramp-kinds';
import { hashSecret } from '../crypto/secret-hash';
import type { VirtualAccountService } from './virtual-account.service';
import type { AccountProvisioning, PreparedAccount } from './account-provisioning';
import { checkOnrampRate } from './onramp-rate-check';
import type { OnrampMerchants, OnrampRates, OnrampSandbox } from './onramp-ports';
import { executeInTransaction } from '../db/locks';
import { retryOnConflict } from '../db/retry';
import { CREDENTIAL_REVOKED } from '../events';
import type { RequestContext } from '../context/request-context';
import { assertOnrampInScope, merchantWide, readScopeOf } from '../context/read-scope';
import type { SecretBox } from '../crypto/secret-box';
import { customerColumns } from './onramp-customer-store';
import { moveOnramp } from './onramp-transitions';
import type { SanctionsScreen } from '../domain/sanctions-screening';

export interface OnrampSettings {
  ttlSeconds: number;
  dailyLimit: number;
  /** Sandbox deployments schedule auto-simulated transfers for merchants that asked. */
  sandbox: boolean;
}

export interface CreatedOnramp {
  onramp: Onramp;
  /** `oc_...`: returned once, in the creation response only. */
  clientSecret: string;
}

type CreateOutcome = CreatedOnramp | { frozen: true };

/** The name the payer's bank shows for the account. */
const accountNameOf = (merchantName: string) => `${merchantName} Checkout`.slice(0, 100);

const merchantFrozen = () =>
  new DomainError(ErrorCode.MerchantFrozen, 'This merchant account is frozen; contact support');

/** Creating, reading, deactivating and expiring onramps. */
export class OnrampService {
  constructor(
    private readonly clock: Clock,
    private readonly settings: OnrampSettings,
    private readonly rates: OnrampRates,
    private readonly accounts: VirtualAccountService,
    private readonly sandbox: OnrampSandbox,
    private readonly provisioning: AccountProvisioning,
    /** Seals the customer record (ENCRYPTION_KEY). */
    private readonly box: SecretBox,
    private readonly merchants: OnrampMerchants,
    private readonly sanctions: SanctionsScreen,
  ) {}

  async create(
    em: EntityManager,
    merchantId: string,
    input: CreateOnrampInput,
  ): Promise<CreatedOnramp> {
    const request = parseCreateOnramp(input);
    if (request.settlement.mode === 'AUTO_WITHDRAW') {
      await this.sanctions.refuseListed(em, {
        merchantId,
        place: 'onramp_creation',
        field: 'destination_address',
        address: request.settlement.destinationAddress,
        chain: request.settlement.chain,
      });
    }
    // A frozen merchant hears so first, whatever the rate; the locked check below decides races.
    const merchant = await this.merchants.find(em, merchantId);
    if (merchant?.status === MerchantStatus.FROZEN) throw merchantFrozen();
    await checkOnrampRate(this.rates, this.clock, em, merchantId, request);
    const id = newId('onr', this.clock);
    // Outside the transaction: a bank provider's HTTP call must not hold one. An account opened
    // for a creation that then fails (the day's limit reached meanwhile) is never handed out.
    const prepared = await this.provisioning.prepare({
      onrampId: id,
      email: request.email,
      accountName: accountNameOf(merchant?.name ?? ''),
      customer: request.customer,
    });
    // A rare race on a reused account number aborts the transaction; the whole creation reruns.
    const outcome = await retryOnConflict(() =>
      em.fork().transactional((tx) => this.createLocked(tx, merchantId, request, id, prepared)),
    );
    if ('frozen' in outcome) throw merchantFrozen();
    return outcome;
  }

  /**
   * Runs with the merchant row locked, so the daily count and the freeze are exact under any
   * concurrency: the (limit + 1)-th creation of the Lagos day freezes the merchant and is
   * refused; the freeze commits, the onramp does not exist.
   */
  private async createLocked(
    tx: EntityManager,
    merchantId: string,
    request: ValidOnrampRequest,
    id: string,
    prepared: PreparedAccount,
  ): Promise<CreateOutcome> {
    const merchant = await this.merchants.lock(tx, merchantId);
    if (!merchant) throw new Error(`merchant ${merchantId} vanished while creating an onramp`);
    if (merchant.status === MerchantStatus.FROZEN) return { frozen: true };
    const now = this.clock.now();
    const [{ created }] = await executeInTransaction<{ created: number }>(
      tx,
      `insert into merchant_daily_onramps (merchant_id, day, created) values (?, ?, 1)
       on conflict (merchant_id, day) do update set created = merchant_daily_onramps.created + 1
       returning created`,
      [merchantId, lagosDay(now)],
    );
    if (created > this.settings.dailyLimit) {
      this.merchants.move(merchant, MerchantStatus.FROZEN, now);
      return { frozen: true };
    }
    const account = await this.provisioning.assign(tx, id, prepared);
    const clientSecret = newSecret('oc_');
    const settlement = request.settlement;
    const onramp = Object.assign(new Onramp(), {
      id,
      merchantId,
      type: request.type as OnrampType,
      rateId: request.rateId,
      paymentReference: newPaymentReference(),
      accountNumber: account.accountNumber,
      accountName: account.accountName ?? accountNameOf(merchant.name),
      bankName: account.bankName,
      bankCode: account.bankCode,
      userEmail: request.email,
      settlementMode: settlement.mode as SettlementMode,
      settlementAsset: settlement.mode === 'AUTO_WITHDRAW' ? settlement.asset : null,
      settlementChain: settlement.mode === 'AUTO_WITHDRAW' ? settlement.chain : null,
      destinationAddress:
        settlement.mode === 'AUTO_WITHDRAW' ? settlement.destinationAddress : null,
      clientSecretHash: hashSecret(clientSecret),
      amountNgn: request.amountNgn,
      payerName: request.payerName,
      ...customerColumns(this.box, id, request.customer),
      expiresAt:
        request.type === 'PERMANENT'
          ? null
          : new Date(now.getTime() + this.settings.ttlSeconds * 1000),
      createdAt: now,
    });
    moveOnramp(onramp, OnrampStatus.ACTIVE, now);
    tx.persist(onramp);
    if (this.settings.sandbox) {
      await tx.flush(); // the scheduled transfer references the onramp row
      await this.sandbox.scheduleAutoDeposit(tx, merchantId, id, account.accountNumber);
    }
    return { onramp, clientSecret };
  }

  /**
   * One onramp within the context's scope; null when unknown or another merchant's. A client
   * secret naming another onramp is 403 before anything is read.
   */
  async find(em: EntityManager, ctx: RequestContext, onrampId: string): Promise<Onramp | null> {
    const scope = readScopeOf(ctx);
    assertOnrampInScope(scope, onrampId);
    const merchant = scope.merchantId === null ? {} : { merchantId: scope.merchantId };
    return em.findOne(Onramp, { id: onrampId, ...merchant });
  }

  /** `find`, but unknown and another merchant's are 404. */
  async get(em: EntityManager, ctx: RequestContext, onrampId: string): Promise<Onramp> {
    const onramp = await this.find(em, ctx, onrampId);
    if (!onramp) throw new DomainError(ErrorCode.NotFound, `No onramp ${onrampId}`);
    return onramp;
  }

  /** The merchant's onramps, newest first: a secret key's read (a client secret is 403). */
  async list(
    em: EntityManager,
    ctx: RequestContext,
    page: { offset: number; limit: number },
  ): Promise<{ onramps: Onramp[]; total: number }> {
    const merchantId = merchantWide(ctx);
    const [onramps, total] = await em.findAndCount(
      Onramp,
      { merchantId },
      { orderBy: NEWEST_FIRST, offset: page.offset, limit: page.limit },
    );
    return { onramps, total };
  }

  /** Keyset page for GraphQL connections: newest first, strictly after the cursor. */
  async listAfter(
    em: EntityManager,
    ctx: RequestContext,
    after: { createdAt: Date; id: string } | null,
    limit: number,
  ): Promise<{ onramps: Onramp[]; total: number; hasMore: boolean }> {
    const merchantId = merchantWide(ctx);
    const [rows, total] = await Promise.all([
      em.find(Onramp, afterCursor({ merchantId }, after), {
        orderBy: NEWEST_FIRST,
        limit: limit + 1,
      }),
      em.count(Onramp, { merchantId }),
    ]);
    return { onramps: rows.slice(0, limit), total, hasMore: rows.length > limit };
  }

  /** PERMANENT onramps only; deactivating twice answers the deactivated onramp. */
  async deactivate(em: EntityManager, merchantId: string, onrampId: string): Promise<Onramp> {
    return em.transactional(async (tx) => {
      const onramp = await tx.findOne(
        Onramp,
        { id: onrampId, merchantId },
        { lockMode: LockMode.PESSIMISTIC_WRITE },
      );
      if (!onramp) throw new DomainError(ErrorCode.NotFound, `No onramp ${onrampId}`);
      if (onramp.type !== OnrampType.PERMANENT) {
        throw new DomainError(
          ErrorCode.InvalidParameter,
          `Only PERMANENT onramps can be deactivated; ${onramp.type} onramps expire by themselves`,
        );
      }
      if (onramp.status === OnrampStatus.DEACTIVATED) return onramp;
      moveOnramp(onramp, OnrampStatus.DEACTIVATED, this.clock.now());
      await this.accounts.release(tx, onramp.id);
      return onramp;
    });
  }

  /**
   * Revokes the onramp's client secret: from the commit on it is 401 on HTTP, and the
   * `onramp_credential_revoked` notification (sent in the same transaction, so only once it is
   * true) tells every gateway to close the websockets authenticated with it. Revoking again
   * answers the onramp and notifies again (harmless: nothing is left open).
   */
  async revokeClientSecret(
    em: EntityManager,
    merchantId: string,
    onrampId: string,
  ): Promise<Onramp> {
    await em.transactional(async (tx) => {
      const rows = await executeInTransaction<{ id: string }>(
        tx,
        `update onramps set client_secret_revoked_at = coalesce(client_secret_revoked_at, ?)
          where id = ? and merchant_id = ? returning id`,
        [this.clock.now(), onrampId, merchantId],
      );
      if (rows.length === 0) throw new DomainError(ErrorCode.NotFound, `No onramp ${onrampId}`);
      await executeInTransaction(tx, 'select pg_notify(?, ?)', [
        CREDENTIAL_REVOKED.name,
        JSON.stringify({ kind: 'client_secret', id: onrampId }),
      ]);
    });
    return em.findOneOrFail(Onramp, { id: onrampId, merchantId }); // the update found it
  }

  /** The expiry sweep: ACTIVE short-lived onramps past their TTL become EXPIRED, accounts freed. */
  async expireDue(em: EntityManager, batch = 500): Promise<number> {
    return em.transactional(async (tx) => {
      const now = this.clock.now();
      const due = await tx.find(
        Onramp,
        { status: OnrampStatus.ACTIVE, expiresAt: { $lte: now } },
        {
          limit: batch,
          lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE,
          orderBy: { expiresAt: 'asc' },
        },
      );
      for (const onramp of due) {
        moveOnramp(onramp, OnrampStatus.EXPIRED, now);
        await this.accounts.release(tx, onramp.id);
      }
      return due.length;
    });
  }
}
