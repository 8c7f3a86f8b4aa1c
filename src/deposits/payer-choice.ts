/** The answers a payer resolution link can get, and what the payer's form sends. */

/** Why a link opens nothing: unknown or altered (404), expired or replaced by a newer one (410). */
export class ResolutionLinkRefused extends Error {
  override readonly name = 'ResolutionLinkRefused';
  constructor(readonly refusal: 'unknown' | 'expired' | 'superseded') {
    super(`resolution link ${refusal}`);
  }
}

/**
 * Why a choice was not applied: not a choice (400), not offered (400), no rate to settle at
 * (409, try later), the deposit resolved already, by this link or otherwise (409); no account
 * number of 10 digits (400), not the payer's account (400, counted: `attemptsLeft`), or the
 * deposit's links locked by too many wrong account numbers (403).
 */
export class PayerChoiceRefused extends Error {
  override readonly name = 'PayerChoiceRefused';
  constructor(
    readonly refusal:
      | 'invalid'
      | 'not_offered'
      | 'no_rate'
      | 'resolved'
      | 'no_account'
      | 'wrong_account'
      | 'locked',
    readonly attemptsLeft?: number,
  ) {
    super(`payer choice ${refusal}`);
  }
}

/** What the payer's form sent, and from where (`request.ip`, as TRUST_PROXY decides). */
export interface PayerChoice {
  choice: unknown;
  accountNumber: unknown;
  clientAddress: string;
}
