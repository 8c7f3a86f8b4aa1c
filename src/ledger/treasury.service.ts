import type { EntityManager } from '@mikro-orm/postgresql';
import { formatEther } from 'viem';
import type { Clock } from '../clock';
import type { ChainRegistry } from '../adapters/chain/chain-registry';
import { chainErrorMessage } from '../adapters/chain/chain-error-message';
import type { ChainGateway, Stablecoin } from '../adapters/chain/chain-gateway';
import { DEPOSIT_TOTALS_BY_STATUS_SQL } from '../deposits/deposit-counts';
import { CHAINS } from '../domain/assets';
import { DEPOSIT_STATUSES, type DepositStatus } from '../domain/deposit-state-machine';
import {
  merchantAccount,
  MERCHANT_BUCKETS,
  ngnHoldingOf,
  OPERATOR,
  type Currency,
  type LedgerAccountSpec,
  type MerchantBucket,
} from '../domain/ledger';
import { ASSET_DECIMALS, dec, NGN_DECIMALS, type Dec } from '../domain/money';
import { fromBaseUnits } from '../domain/payout-rules';
import { lit, merchantAccountIdSql, operatorBalance } from './ledger-sql';

/**
 * The spec: "FAILED, FLAGGED and REVERSED deposits are not counted as service-owned funds and
 * are excluded from treasury calculations." Deposits on their way back to the payer (or whose
 * return the bank refused, or that went back) are the payer's money, not the service's.
 */
export const TREASURY_EXCLUDED_STATUSES: readonly DepositStatus[] = [
  'FAILED',
  'FLAGGED',
  'REVERSED',
  'RETURNING',
  'RETURNED',
  'RETURN_FAILED',
];

export interface TreasuryAccount {
  /** `operator:<name>`. */
  id: string;
  currency: Currency;
  /** What the account holds in its normal direction (may be negative for a DEBIT account). */
  balance: string;
}

export interface TreasuryDepositStatus {
  status: string;
  count: number;
  /** Sum of amount_ngn of every deposit in the status. */
  amountNgn: string;
  /** True for FAILED, FLAGGED and REVERSED: not service-owned funds. */
  excluded: boolean;
  /** The operator account holding this status's NGN while unconverted (null: none). */
  ngnHeldIn: string | null;
  /** The part of amountNgn still held as NGN (not converted, not reversed): what ngnHeldIn holds. */
  ngnHeld: string;
}

export interface TreasuryHotWallet {
  chain: string;
  /** The hot wallet's address (null: the chain is not configured). */
  address: string | null;
  /** The block the balances were read at, as a decimal string. */
  blockNumber: string | null;
  /** Native coin, exact, in ether units. */
  native: string | null;
  /** Token balances, exact, with 6 decimals. */
  tokens: Record<Stablecoin, string | null>;
  /** Why there are no balances: the node did not answer, or the chain is not configured. */
  error: string | null;
}

/** Plain data: a CLI prints it as JSON, GraphQL maps it. Amounts are exact decimal strings. */
export interface TreasuryReport {
  asOf: string;
  /** Funds the service owns: NGN awaiting FX and USD it owes for counted deposits. */
  serviceOwned: {
    /** operator:ngn_clearing: NGN of PENDING_FX deposits awaiting FX. */
    ngnClearing: string;
    /** Sum of every merchant's usd_available, usd_pending_withdrawal and usd_reserved, less usd_owed. */
    usdOwedToMerchants: string;
    /** operator:usd_payouts_pending: converted USD of AUTO_WITHDRAW deposits owed on-chain. */
    usdOwedOnChain: string;
  };
  /** Held, but excluded from the treasury (FAILED, FLAGGED, unmatched). */
  excluded: {
    /** operator:ngn_suspense: NGN of FLAGGED deposits held for review. */
    ngnSuspense: string;
    /** operator:ngn_returns: NGN of FAILED and RETURNING deposits owed back to senders. */
    ngnReturns: string;
    /** operator:ngn_unmatched: NGN sent to account numbers no onramp held. */
    ngnUnmatched: string;
    /** operator:usd_suspense: converted USD of FLAGGED deposits. */
    usdSuspense: string;
  };
  /** Every operator account, in its normal direction. */
  accounts: TreasuryAccount[];
  /** Every deposit status (zero counts included), with the NGN it accounts for. */
  deposits: TreasuryDepositStatus[];
  /** Each chain's hot wallet, configured or not, in the order of CHAINS. */
  hotWallets: TreasuryHotWallet[];
}

export interface TreasuryOptions {
  /** How long one chain may take to answer before its entry reports an error. */
  chainTimeoutMs?: number;
}

const PLACES: Record<Currency, number> = { NGN: NGN_DECIMALS, USD: ASSET_DECIMALS };
// usd_owed is what merchants owe the operator (a liable reversal): it counts against the rest.
const BUCKETS: readonly MerchantBucket[] = MERCHANT_BUCKETS;

interface Row {
  kind: 'account' | 'merchant' | 'deposits';
  key: string;
  amount: string;
  n: number;
  held: string | null;
}

/**
 * The operator's treasury, read-only: the ledger's operator accounts and merchant balances and
 * the deposits behind them (one SQL statement, so one snapshot), and each hot wallet's
 * on-chain balances (chains read in parallel; one that fails or hangs only blanks its entry).
 */
export class TreasuryService {
  private readonly chainTimeoutMs: number;

  constructor(
    private readonly clock: Clock,
    private readonly chains: ChainRegistry,
    options: TreasuryOptions = {},
  ) {
    this.chainTimeoutMs = options.chainTimeoutMs ?? 5_000;
  }

  async report(em: EntityManager): Promise<TreasuryReport> {
    const asOf = this.clock.now().toISOString();
    const [rows, hotWallets] = await Promise.all([
      em.getConnection().execute<Row[]>(TREASURY_SQL, []),
      this.hotWallets(),
    ]);

    const accounts = Object.values(OPERATOR).map((spec: LedgerAccountSpec) => {
      const row = rows.find((r) => r.kind === 'account' && r.key === spec.id);
      return { id: spec.id, currency: spec.currency, balance: money(row?.amount, spec.currency) };
    });
    const account = (spec: LedgerAccountSpec) => accounts.find((a) => a.id === spec.id)!.balance;
    const owedToMerchants = rows
      .filter((r) => r.kind === 'merchant')
      .reduce(
        (sum: Dec, r) => (r.key === 'usd_owed' ? sum.minus(r.amount) : sum.plus(r.amount)),
        dec(0),
      );

    const depositRows = rows.filter((r) => r.kind === 'deposits');
    const known = new Set<string>(DEPOSIT_STATUSES);
    const statuses = [
      ...DEPOSIT_STATUSES,
      ...depositRows.map((r) => r.key).filter((s) => !known.has(s)),
    ];
    const deposits = statuses.map((status) => {
      const row = depositRows.find((r) => r.key === status);
      return {
        status,
        count: Number(row?.n ?? 0),
        amountNgn: money(row?.amount, 'NGN'),
        excluded: TREASURY_EXCLUDED_STATUSES.includes(status as DepositStatus),
        ngnHeldIn: known.has(status)
          ? (ngnHoldingOf(status as DepositStatus, false)?.id ?? null)
          : null,
        ngnHeld: money(row?.held, 'NGN'),
      };
    });

    return {
      asOf,
      serviceOwned: {
        ngnClearing: account(OPERATOR.ngnClearing),
        usdOwedToMerchants: money(owedToMerchants, 'USD'),
        usdOwedOnChain: account(OPERATOR.usdPayoutsPending),
      },
      excluded: {
        ngnSuspense: account(OPERATOR.ngnSuspense),
        ngnReturns: account(OPERATOR.ngnReturns),
        ngnUnmatched: account(OPERATOR.ngnUnmatched),
        usdSuspense: account(OPERATOR.usdSuspense),
      },
      accounts,
      deposits,
      hotWallets,
    };
  }

  private async hotWallets(): Promise<TreasuryHotWallet[]> {
    const configured = await Promise.all(
      this.chains.configured().map((gateway) => this.hotWallet(gateway)),
    );
    const missing = this.chains.missing().map(({ chain, why }) => ({
      chain,
      address: null,
      blockNumber: null,
      native: null,
      tokens: { USDC: null, USDT: null },
      error: why,
    }));
    const order = (chain: string) => {
      const at = (CHAINS as readonly string[]).indexOf(chain);
      return at < 0 ? CHAINS.length : at;
    };
    return [...configured, ...missing].sort((a, b) => order(a.chain) - order(b.chain));
  }

  private async hotWallet(gateway: ChainGateway): Promise<TreasuryHotWallet> {
    const entry = { chain: gateway.chain, address: gateway.hotWallet };
    try {
      const read = await withTimeout(
        gateway.balances(),
        this.chainTimeoutMs,
        `${gateway.chain} node did not answer within ${this.chainTimeoutMs} ms`,
      );
      return {
        ...entry,
        blockNumber: read.blockNumber.toString(),
        native: formatEther(read.native),
        tokens: { USDC: fromBaseUnits(read.tokens.USDC), USDT: fromBaseUnits(read.tokens.USDT) },
        error: null,
      };
    } catch (error) {
      return {
        ...entry,
        blockNumber: null,
        native: null,
        tokens: { USDC: null, USDT: null },
        error: chainErrorMessage(error),
      };
    }
  }
}

/**
 * One statement (one snapshot, even in READ COMMITTED): a row per operator account (its
 * balance from postings), per merchant bucket (the sum of the running balances) and per
 * deposit status present (the deposits module's fragment). No parameters and no question
 * mark: MikroORM leaves it alone.
 */
const TREASURY_SQL = [
  ...Object.values(OPERATOR).map(
    (spec) => `
      select 'account' as kind, ${lit(spec.id)} as key, a.actual::text as amount,
             0 as n, null::text as held
        from ${operatorBalance(spec.id, spec.normalSide)} a`,
  ),
  ...BUCKETS.map(
    (bucket) => `
      select 'merchant' as kind, ${lit(bucket)} as key, coalesce(sum(a.balance), 0)::text as amount,
             count(*)::int as n, null::text as held
        from ledger_accounts a
       where a.merchant_id is not null
         and a.currency = ${lit(merchantAccount('', bucket).currency)}
         and a.id = ${merchantAccountIdSql('a.merchant_id', bucket)}`,
  ),
  `
      select 'deposits' as kind, t.key, t.amount, t.n, t.held
        from (${DEPOSIT_TOTALS_BY_STATUS_SQL}) t`,
].join('\n      union all');

/**
 * An exact amount with the currency's places (NGN 2, USD 6); more places than that are kept
 * rather than cut, since a report must never lose money in its formatting.
 */
function money(value: Dec | string | null | undefined, currency: Currency): string {
  const amount = dec(value ?? 0);
  return amount.toFixed(Math.max(PLACES[currency], amount.decimalPlaces()));
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
