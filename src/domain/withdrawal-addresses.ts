/**
 * The withdrawal address book's pure rules (issue 21). Status is derived, never stored, so a
 * moved clock (tests, or simply time passing) needs no job to make an address usable; the
 * activation job only announces it.
 */

export type WithdrawalAddressStatus = 'PENDING' | 'ACTIVE';

/** Entries a merchant may keep at once (deleted ones do not count). */
export const WITHDRAWAL_ADDRESS_LIMIT = 100;

/** Sandbox default of WITHDRAWAL_ADDRESS_DELAY_SECONDS; production waits a day. */
const DEFAULT_DELAY_SECONDS = { sandbox: 60, production: 86_400 } as const;

export function withdrawalAddressStatus(activeAt: Date, now: Date): WithdrawalAddressStatus {
  return activeAt.getTime() <= now.getTime() ? 'ACTIVE' : 'PENDING';
}

/** The configured delay, or the deployment's default when unset. */
export function withdrawalAddressDelaySeconds(
  configured: number | undefined,
  sandbox: boolean,
): number {
  return configured ?? DEFAULT_DELAY_SECONDS[sandbox ? 'sandbox' : 'production'];
}

/** `require_address_book` as stored (null: never set) to what applies: on in production. */
export function addressBookRequired(stored: boolean | null, sandbox: boolean): boolean {
  return stored ?? !sandbox;
}
