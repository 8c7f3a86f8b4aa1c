import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The sanctions screening ports (API.md, "Losses, reserves and sanctions"): what the onramps,
 * payouts and deposits modules ask of the sanctions module, filled in by the composition root
 * (src/container.ts), so none of them imports it.
 */

/** Where a merchant's request named an address. */
export type ScreenedPlace = 'onramp_creation' | 'withdrawal' | 'address_book';

export interface ScreenedRequest {
  merchantId: string;
  place: ScreenedPlace;
  /** The request's field, for the message (`destination_address`, `address`). */
  field: string;
  address: string;
  chain: string;
}

export interface SanctionsScreen {
  /**
   * Throws 422 `address_sanctioned` when the address is on the list in force, after writing
   * the refusal to the audit log in a transaction of its own (the request's rolls back).
   */
  refuseListed(em: EntityManager, request: ScreenedRequest): Promise<void>;
}

/** The listed addresses among some, as the list in force says at this instant. */
export interface ListedAddresses {
  /** The list's date (YYYY-MM-DD); null when no list is in force. */
  listDate: string | null;
  /** Lower case. */
  listed: ReadonlySet<string>;
}

/** A payout or deposit stopped because its destination is listed, for the audit log. */
export interface SanctionsFlag {
  merchantId: string;
  /** `deposit` (flagged) or `payout` (a withdrawal's, cancelled). */
  targetType: 'deposit' | 'payout';
  targetId: string;
  address: string;
  listDate: string | null;
  /** Where it was caught: `settlement` (before the FX order) or `payout_signing`. */
  stage: 'settlement' | 'payout_signing';
}

export interface SanctionsMatch {
  /** In the caller's transaction or outside one: one indexed read. */
  listedAmong(em: EntityManager, addresses: readonly string[]): Promise<ListedAddresses>;
  /** Audits a flag in the caller's transaction (it commits with the flag). */
  recordFlag(tx: EntityManager, flag: SanctionsFlag): Promise<void>;
}
