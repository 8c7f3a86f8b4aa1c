import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { Deposit } from './deposit.entity';
import type { MerchantFacts, MerchantLookup } from '../domain/merchant-facts';
import { MerchantStatus } from '../domain/merchant-status';
import { retryOnConflict } from '../db/retry';
import type { DepositStatus } from '../domain/deposit-state-machine';
import { planResolution, ResolutionRefused, type Resolution } from '../domain/deposit-resolution';
import { DomainError, ErrorCode } from '../domain/errors';
import { newId } from '../domain/ids';
import { dec, type Dec } from '../domain/money';
import {
  isPayerAccount,
  PAYER_ACCOUNT_ATTEMPTS,
  typedAccountNumber,
} from '../domain/payer-account';
import {
  linkLifetimeSeconds,
  payerOptions,
  storedPayerResolution,
} from '../domain/payer-resolution';
import {
  signResolutionToken,
  verifyResolutionToken,
  wholeSeconds,
  type ResolutionToken,
} from '../domain/resolution-token';
import { returnedToPayer } from '../domain/return-fee';
import { dueValue } from '../domain/settings-widening';
import type { AuditLogService } from '../audit';
import type { DepositResolutionService } from './deposit-resolution.service';
import { PayerChoiceRefused, ResolutionLinkRefused, type PayerChoice } from './payer-choice';
import {
  countWrongAccount,
  findLink,
  insertLink,
  lockLink,
  markUsed,
  wrongAccountAttempts,
  type ResolutionLinkRow,
} from './resolution-link-store';

/** What the payer's page shows; never more of the deposit than this. */
export interface PayerPageView {
  amountNgn: string;
  merchantName: string | null;
  flagReason: string | null;
  status: DepositStatus;
  /** What was chosen through this link, once used. */
  chosen: Resolution | null;
  /** Too many wrong account numbers: no choice through any of the deposit's links. */
  locked: boolean;
  expiresAt: Date;
  settle: { asset: string; amount: string } | null;
  return: { amountNgn: string; bankCode: string | null; last4: string } | null;
}

export interface ResolutionLinkOptions {
  /** Where links start (`PUBLIC_URL`), or why links cannot be sent. */
  base: { url: string; fromListener?: boolean } | { problem: string };
  key: Buffer;
  returnFeeNgn: Dec;
}

/**
 * Payer resolution links (docs/api.md, "Payer resolution links"): the merchant asks for a
 * signed link to a FLAGGED deposit; the payer opens it and settles at today's rate (when the
 * merchant allows it and the flag is one he can fix) or has his money returned. The choice
 * goes through the operator's resolution path, under the deposit's lock, so the events,
 * webhooks and ledger are those of any other resolution.
 */
export class ResolutionLinkService {
  constructor(
    private readonly clock: Clock,
    private readonly resolutions: DepositResolutionService,
    private readonly auditLog: AuditLogService,
    private readonly options: ResolutionLinkOptions,
    /** The merchants module's `getMerchant`. */
    private readonly getMerchant: MerchantLookup,
  ) {}

  /** The sandbox default: links start with the address the gateway listens on. */
  listeningAt(address: string): void {
    const base = this.options.base;
    if ('url' in base && base.fromListener) base.url = address.replace(/\/+$/, '');
  }

  async create(
    em: EntityManager,
    merchantId: string,
    depositId: string,
    expiresInSeconds: unknown,
  ): Promise<{ url: string; expires_at: string }> {
    const lifetime = linkLifetimeSeconds(expiresInSeconds);
    const base = this.options.base;
    if ('problem' in base) throw new DomainError(ErrorCode.ServiceUnavailable, base.problem);
    return retryOnConflict(() =>
      em.fork().transactional(async (tx) => {
        const deposit = await tx.findOne(
          Deposit,
          { id: depositId, merchantId },
          { lockMode: LockMode.PESSIMISTIC_WRITE },
        );
        if (!deposit) throw new DomainError(ErrorCode.NotFound, `No deposit ${depositId}`);
        if (deposit.status !== 'FLAGGED') {
          throw new DomainError(
            ErrorCode.InvalidParameter,
            `Only FLAGGED deposits can have a resolution link; this one is ${deposit.status}`,
          );
        }
        const now = this.clock.now();
        const token = {
          linkId: newId('rsl', this.clock),
          expiresAt: wholeSeconds(new Date(now.getTime() + lifetime * 1000)),
        };
        await insertLink(
          tx,
          { id: token.linkId, expiresAt: token.expiresAt, depositId, merchantId },
          now,
        );
        return {
          url: `${base.url}/pay/resolve/${signResolutionToken(this.options.key, token)}`,
          expires_at: token.expiresAt.toISOString(),
        };
      }),
    );
  }

  /** The page's content for a token, or ResolutionLinkRefused. */
  async view(em: EntityManager, text: string): Promise<PayerPageView> {
    const token = this.verified(text);
    const reader = em.fork();
    const link = this.usable(token, await findLink(reader, token.linkId));
    const deposit = await reader.findOneOrFail(Deposit, { id: link.deposit_id });
    const merchant = await this.getMerchant(reader, link.merchant_id);
    const locked = (await wrongAccountAttempts(reader, deposit.id)) >= PAYER_ACCOUNT_ATTEMPTS;
    const offered = link.used_at || locked ? null : await this.offered(reader, deposit, merchant);
    const amountBack = returnedToPayer(dec(deposit.amountNgn), this.options.returnFeeNgn);
    return {
      amountNgn: deposit.amountNgn,
      merchantName: merchant.name || null,
      flagReason: deposit.flagReason,
      status: deposit.status,
      chosen: link.choice,
      locked: locked && !link.used_at,
      expiresAt: token.expiresAt,
      settle: offered?.settle ?? null,
      return: offered?.return
        ? {
            amountNgn: amountBack.toFixed(2),
            bankCode: deposit.senderBank,
            last4: (deposit.senderAccount ?? '').slice(-4),
          }
        : null,
    };
  }

  /**
   * Applies the payer's choice once, everything checked again under the deposit's lock. The
   * account number comes first: a wrong one is counted (committed, whatever follows) before
   * anything about the options is said.
   */
  async choose(em: EntityManager, text: string, form: PayerChoice): Promise<void> {
    const token = this.verified(text);
    const choice = form.choice;
    if (choice !== 'settle' && choice !== 'return') throw new PayerChoiceRefused('invalid');
    const found = await findLink(em.fork(), token.linkId);
    if (!found) throw new ResolutionLinkRefused('unknown');
    const typed = typedAccountNumber(form.accountNumber);
    const refusal = await retryOnConflict(() =>
      em.fork().transactional(async (tx) => {
        // The deposit first, then the link: the order link creation takes them in.
        const deposit = await tx.findOneOrFail(
          Deposit,
          { id: found.deposit_id },
          { lockMode: LockMode.PESSIMISTIC_WRITE },
        );
        const link = await lockLink(tx, token.linkId);
        if (link?.used_at) throw new PayerChoiceRefused('resolved');
        this.usable(token, link);
        if (deposit.status !== 'FLAGGED') throw new PayerChoiceRefused('resolved');
        const actor = `payer:link:${token.linkId}`;
        const via = { link_id: token.linkId, client_address: form.clientAddress };
        if ((await wrongAccountAttempts(tx, deposit.id)) >= PAYER_ACCOUNT_ATTEMPTS) {
          throw new PayerChoiceRefused('locked');
        }
        if (typed === null) throw new PayerChoiceRefused('no_account');
        if (!isPayerAccount(deposit.senderAccount, typed)) {
          const wrong = await countWrongAccount(tx, token.linkId, deposit.id);
          if (wrong >= PAYER_ACCOUNT_ATTEMPTS) {
            await this.auditLog.record(tx, {
              actor,
              action: 'deposit.payer_link_locked',
              targetType: 'deposit',
              targetId: deposit.id,
              before: null,
              after: { wrong_account_numbers: wrong, ...via },
            });
          }
          // Returned, not thrown: the count must commit.
          return new PayerChoiceRefused('wrong_account', PAYER_ACCOUNT_ATTEMPTS - wrong);
        }
        const merchant = await this.getMerchant(tx, deposit.merchantId);
        const offered = await this.offered(tx, deposit, merchant);
        if (!offered[choice]) throw new PayerChoiceRefused('not_offered');
        const before = { status: deposit.status, flag_reason: deposit.flagReason };
        try {
          await this.resolutions.resolveLocked(tx, deposit, choice, actor);
        } catch (error) {
          if (error instanceof DomainError && error.code === ErrorCode.RateUnavailable) {
            throw new PayerChoiceRefused('no_rate');
          }
          throw error;
        }
        await markUsed(tx, token.linkId, choice, this.clock.now());
        await this.auditLog.record(tx, {
          actor,
          action: `deposit.payer_resolve_${choice}`,
          targetType: 'deposit',
          targetId: deposit.id,
          before,
          after: { status: deposit.status, amount_asset: deposit.amountAsset, ...via },
        });
        return null;
      }),
    );
    if (refusal) throw refusal;
  }

  /** The signature first (no lookup for an altered token), then the signed expiry. */
  private verified(text: string): ResolutionToken {
    const token = verifyResolutionToken(this.options.key, text);
    if (!token) throw new ResolutionLinkRefused('unknown');
    if (this.clock.now() >= token.expiresAt) throw new ResolutionLinkRefused('expired');
    return token;
  }

  /** The row must be the one signed, still current and, by its own time, not expired. */
  private usable(token: ResolutionToken, link: ResolutionLinkRow | null): ResolutionLinkRow {
    if (!link || new Date(link.expires_at).getTime() !== token.expiresAt.getTime()) {
      throw new ResolutionLinkRefused('unknown');
    }
    if (link.used_at) return link;
    if (link.superseded_at) throw new ResolutionLinkRefused('superseded');
    if (this.clock.now() >= new Date(link.expires_at)) throw new ResolutionLinkRefused('expired');
    return link;
  }

  /** What the payer may choose now, with the amounts shown next to each option. */
  private async offered(em: EntityManager, deposit: Deposit, merchant: MerchantFacts) {
    const facts = await this.resolutions.factsOf(em, deposit);
    let settlePlannable = true;
    try {
      planResolution(facts, 'settle');
    } catch (error) {
      if (!(error instanceof ResolutionRefused)) throw error;
      settlePlannable = false;
    }
    const options = payerOptions({
      status: deposit.status,
      flagReason: deposit.flagReason,
      merchantActive: merchant.status === MerchantStatus.ACTIVE,
      // A pending `true` counts only once due (issue 32).
      allowSettle:
        (dueValue(merchant.pendingSettings, 'payer_resolution.allow_settle', this.clock.now()) as
          boolean | undefined) ?? storedPayerResolution(merchant.payerResolution).allow_settle,
      settlePlannable,
      converted: facts.converted,
      reversed: facts.reversed,
      senderAccountKnown: Boolean(deposit.senderAccount),
    });
    // Settle needs a rate now: without one it is not offered (the page says to come back).
    const quote = options.settle ? await this.resolutions.settleQuote(em, deposit) : null;
    return { settle: quote, return: options.return };
  }
}
