import { lockAvailableBalance, type LedgerService } from '../ledger';
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { afterCursor, NEWEST_FIRST } from '../db/keyset';
import type { Clock } from '../clock';
import type { MerchantLookup } from '../domain/merchant-facts';
import { MerchantStatus } from '../domain/merchant-status';
import { Withdrawal } from './withdrawal.entity';
import { retryOnConflict } from '../db/retry';
import { parseChain, validateEvmAddress } from '../domain/addresses';
import { DomainError, ErrorCode, invalidParameter, missingParameter } from '../domain/errors';
import { newId } from '../domain/ids';
import { merchantAccount, transfer } from '../domain/ledger';
import { ASSET_DECIMALS, dec, isDecimalString, type Dec } from '../domain/money';
import type { Cursor } from '../domain/pagination';
import type { PayoutService } from './payout.service';
import { moveWithdrawal } from './payout-transitions';
import { addressBookRequired } from '../domain/withdrawal-addresses';
import { dueValue } from '../domain/settings-widening';
import { lockActiveEntry } from './withdrawal-address-store';
import type { SanctionsScreen } from '../domain/sanctions-screening';

export interface WithdrawInput {
  amount?: unknown;
  asset?: unknown;
  chain?: unknown;
  destination_address?: unknown;
}

interface ValidWithdrawal {
  amount: Dec;
  asset: 'USDC' | 'USDT';
  chain: string;
  destinationAddress: string;
}

/**
 * Merchant withdrawals: the amount leaves usd_available for usd_pending_withdrawal in the
 * same transaction that records the withdrawal and its payout, under a lock on the
 * merchant's available-balance row, so concurrent requests can never together spend more
 * than the balance. The payout flow settles it (COMPLETED) or gives it back (FAILED).
 */
export class WithdrawalService {
  constructor(
    private readonly clock: Clock,
    private readonly ledger: LedgerService,
    private readonly payouts: PayoutService,
    private readonly minimumUsd: Dec,
    /** The sandbox's default leaves the address book optional; production requires it. */
    private readonly sandbox: boolean,
    /** The merchants module's `getMerchant`. */
    private readonly getMerchant: MerchantLookup,
    private readonly sanctions: SanctionsScreen,
  ) {}

  validate(input: WithdrawInput): ValidWithdrawal {
    for (const field of ['amount', 'asset', 'chain', 'destination_address'] as const) {
      if (input[field] === undefined || input[field] === null) throw missingParameter(field);
      if (typeof input[field] !== 'string') throw invalidParameter(field, 'must be a string');
    }
    const amountText = input.amount as string;
    if (!isDecimalString(amountText, ASSET_DECIMALS)) {
      throw invalidParameter(
        'amount',
        'must be a decimal string with at most 6 places, e.g. "25.50"',
      );
    }
    const amount = dec(amountText);
    if (amount.lt(this.minimumUsd)) {
      throw invalidParameter('amount', `must be at least ${this.minimumUsd.toFixed()} USD`);
    }
    const asset = input.asset as string;
    if (asset !== 'USDC' && asset !== 'USDT')
      throw invalidParameter('asset', 'must be USDC or USDT');
    const chain = parseChain(input.chain as string);
    if (!chain) throw invalidParameter('chain', 'must be BASE, ETHEREUM (or ETH) or POLYGON');
    const destinationAddress = validateEvmAddress(input.destination_address as string, chain);
    return { amount, asset, chain, destinationAddress };
  }

  async request(em: EntityManager, merchantId: string, input: WithdrawInput): Promise<Withdrawal> {
    const valid = this.validate(input);
    // First of the refusals (API.md): address_sanctioned, then address_not_allowed, then
    // insufficient_balance.
    await this.sanctions.refuseListed(em, {
      merchantId,
      place: 'withdrawal',
      field: 'destination_address',
      address: valid.destinationAddress,
      chain: valid.chain,
    });
    return retryOnConflict(() =>
      em.fork().transactional(async (tx) => {
        const merchant = await this.getMerchant(tx, merchantId);
        if (merchant.status === MerchantStatus.FROZEN) {
          throw new DomainError(
            ErrorCode.MerchantFrozen,
            'This merchant account is frozen; contact support',
          );
        }
        const now = this.clock.now();
        if (
          // A pending `false` applies only once due (issue 32): a leaked key waits the delay.
          addressBookRequired(
            (dueValue(merchant.pendingSettings, 'require_address_book', now) as
              boolean | undefined) ?? merchant.requireAddressBook,
            this.sandbox,
          ) &&
          !(await lockActiveEntry(tx, merchantId, valid.chain, valid.destinationAddress, now))
        ) {
          throw new DomainError(
            ErrorCode.AddressNotAllowed,
            `${valid.destinationAddress} is not an ACTIVE ${valid.chain} address of your withdrawal address book`,
          );
        }
        const available = merchantAccount(merchantId, 'usd_available');
        const balance = await lockAvailableBalance(tx, merchantId);
        if (balance.lt(valid.amount)) {
          throw new DomainError(
            ErrorCode.InsufficientBalance,
            `Withdrawal of ${valid.amount.toFixed(6)} USD exceeds the available balance of ${balance.toFixed(6)} USD`,
          );
        }
        const withdrawal = Object.assign(new Withdrawal(), {
          id: newId('wd', this.clock),
          merchantId,
          amount: valid.amount.toFixed(6),
          asset: valid.asset,
          chain: valid.chain,
          destinationAddress: valid.destinationAddress,
          txHash: null,
          createdAt: now,
        });
        moveWithdrawal(withdrawal, { to: 'PENDING' }, now);
        tx.persist(withdrawal);
        await tx.flush();
        const [payout] = await this.payouts.create(tx, [
          {
            merchantId,
            chain: valid.chain,
            asset: valid.asset,
            toAddress: valid.destinationAddress,
            amount: valid.amount.toFixed(6),
            withdrawalId: withdrawal.id,
          },
        ]);
        await this.ledger.post(tx, {
          kind: 'withdrawal_requested',
          payoutId: payout.id,
          memo: withdrawal.id,
          postings: transfer(
            available,
            merchantAccount(merchantId, 'usd_pending_withdrawal'),
            valid.amount,
          ),
        });
        return withdrawal;
      }),
    );
  }

  async find(em: EntityManager, merchantId: string, id: string): Promise<Withdrawal | null> {
    return em.findOne(Withdrawal, { id, merchantId });
  }

  /** Another merchant's id is 404 like an unknown one. */
  async get(em: EntityManager, merchantId: string, id: string): Promise<Withdrawal> {
    const withdrawal = await this.find(em, merchantId, id);
    if (!withdrawal) throw new DomainError(ErrorCode.NotFound, `No withdrawal ${id}`);
    return withdrawal;
  }

  async list(
    em: EntityManager,
    merchantId: string,
    page: { offset: number; limit: number },
  ): Promise<{ withdrawals: Withdrawal[]; total: number }> {
    const [withdrawals, total] = await em.findAndCount(
      Withdrawal,
      { merchantId },
      { orderBy: NEWEST_FIRST, offset: page.offset, limit: page.limit },
    );
    return { withdrawals, total };
  }

  /** Keyset page for GraphQL connections, strictly after the cursor. */
  async listAfter(
    em: EntityManager,
    merchantId: string,
    after: Cursor | null,
    limit: number,
  ): Promise<{ withdrawals: Withdrawal[]; total: number; hasMore: boolean }> {
    const where: FilterQuery<Withdrawal> = afterCursor({ merchantId }, after);
    const [rows, total] = await Promise.all([
      em.find(Withdrawal, where, { orderBy: NEWEST_FIRST, limit: limit + 1 }),
      em.count(Withdrawal, { merchantId }),
    ]);
    return { withdrawals: rows.slice(0, limit), total, hasMore: rows.length > limit };
  }
}
