import type { EntityManager } from '@mikro-orm/postgresql';
import type { BankProvider } from '../adapters/bank/bank-provider';
import type { DepositIngestionService, IngestOutcome } from './deposit-ingestion.service';
import { parseInboundTransfer, type InboundTransfer } from '../domain/inbound-transfer';

export type IntakeOutcome =
  | IngestOutcome
  /** The provider's API does not confirm the transfer as announced: nothing is credited. */
  | { kind: 'not_confirmed'; reason: string }
  /** The account belongs to another provider: no notification of this one may credit it. */
  | { kind: 'wrong_provider'; holder: string }
  /**
   * A provider's notification names an account number we never recorded: hostile or
   * misdirected input, refused before the provider is asked (the sweep, which reads the
   * provider's own list, still keeps a real transfer to such an account as unmatched).
   */
  | { kind: 'unknown_account' };

/** Which provider issued an account number (null: none of ours). */
export type AccountProviderLookup = (
  em: EntityManager,
  accountNumber: string,
) => Promise<{ provider: string; assignedAt: Date | null } | null>;

const POOLED = new Set(['sandbox', 'hmac']);
/** Pool accounts are one family: the sandbox and the generic bank share the NUBAN pool. */
const sameFamily = (holder: string, provider: string) =>
  holder === provider || (POOLED.has(holder) && POOLED.has(provider));

/**
 * A provider-opened account exists only from its hand-out to its one onramp, so a transfer
 * into it cannot be earlier: a time before the hand-out is the provider's clock or its
 * whole-second precision (Monnify's `paidOn`), and is read as the hand-out itself. Otherwise
 * the arrival would fall before the onramp held the number and be kept as unmatched. Pool
 * numbers are reused, so their times stand as given.
 */
function notBeforeHandOut(
  transfer: InboundTransfer,
  account: { provider: string; assignedAt: Date | null } | null,
): InboundTransfer {
  const from = account?.assignedAt;
  if (!account || POOLED.has(account.provider) || !from || !transfer.transferredAt) {
    return transfer;
  }
  return transfer.transferredAt < from ? { ...transfer, transferredAt: from } : transfer;
}

/**
 * A bank provider's inbound transfer on its way to becoming a deposit, whether a notification
 * or the sweep brought it. The account must be one this provider issued, and unless the
 * transfer came from the provider's own API (the sweep), the provider's API must confirm it
 * first: a leaked notification secret alone cannot mint a deposit. The provider's figures are
 * what is credited. A transfer already recorded is answered without asking the provider again.
 */
export class BankTransferIntake {
  constructor(
    private readonly ingestion: DepositIngestionService,
    private readonly providerOfAccount: AccountProviderLookup,
  ) {}

  async receive(
    em: EntityManager,
    provider: BankProvider,
    announced: InboundTransfer,
    options: { fromProviderApi: boolean },
  ): Promise<IntakeOutcome> {
    const transfer = parseInboundTransfer(announced);
    const account = await this.providerOfAccount(em, transfer.accountNumber);
    const holder = account?.provider ?? null;
    if (holder !== null && !sameFamily(holder, provider.name)) {
      return { kind: 'wrong_provider', holder };
    }
    // Pool numbers no onramp held stay the v0.1 unmatched case (docs/bank-notifications.md).
    if (holder === null && !provider.pooled && !options.fromProviderApi) {
      return { kind: 'unknown_account' };
    }
    if (options.fromProviderApi || (await this.known(em, transfer.bankReference))) {
      return this.ingestion.receive(em, notBeforeHandOut(transfer, account));
    }
    const confirmation = await provider.confirm(transfer);
    if (!confirmation.confirmed) return { kind: 'not_confirmed', reason: confirmation.reason };
    const confirmed = parseInboundTransfer(confirmation.transfer);
    if (confirmed.accountNumber !== transfer.accountNumber) {
      return { kind: 'not_confirmed', reason: 'the provider names another account' };
    }
    return this.ingestion.receive(em, notBeforeHandOut(confirmed, account));
  }

  private async known(em: EntityManager, bankReference: string): Promise<boolean> {
    const rows = await em
      .getConnection()
      .execute('select 1 from deposits where bank_reference = ? limit 1', [bankReference]);
    return rows.length > 0;
  }
}
