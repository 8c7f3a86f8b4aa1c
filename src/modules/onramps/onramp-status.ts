/**
 * What an onramp's status is at a given instant. The expiry sweep persists EXPIRED and frees
 * the virtual account; reads use this so a short-lived onramp reads EXPIRED from the moment
 * its TTL ends, not from the next sweep.
 */
export function onrampStatusAt(
  onramp: { status: string; expiresAt: Date | null },
  now: Date,
): string {
  if (onramp.status === 'ACTIVE' && onramp.expiresAt !== null && onramp.expiresAt <= now) {
    return 'EXPIRED';
  }
  return onramp.status;
}
