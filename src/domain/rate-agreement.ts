import { Dec, dec } from './money';
import { RATE_DECIMALS } from './rates';

/**
 * One source's answer for one currency: a price with the source's own timestamp when it gives
 * one, or why there is none (down, timed out, malformed answer, no such market).
 */
export type PriceObservation =
  { source: string; price: Dec; observedAt?: Date } | { source: string; problem: string };

export interface AgreementRule {
  /** Fresh, agreeing prices needed to publish (RATE_SOURCES_MIN). */
  minSources: number;
  /** How far from the median of the fresh prices a price may be and still agree, in bps. */
  maxSpreadBps: number;
  /** A price whose own timestamp is older than this is stale (RATE_SOURCES_MAX_AGE_SECONDS). */
  maxAgeSeconds: number;
}

/**
 * A source clock ahead of ours by more than this is not believed: a timestamp from the future
 * would otherwise keep a price "fresh" for as long as that clock is wrong.
 */
export const MAX_FUTURE_SKEW_SECONDS = 60;

export interface Excluded {
  source: string;
  reason: string;
}

export type Agreement =
  | { agreed: true; price: Dec; used: string[]; excluded: Excluded[] }
  | { agreed: false; reason: string; used: string[]; excluded: Excluded[] };

/**
 * The market rate rule (docs/decisions.md, "Market rate sources"), one currency at a time:
 *  1. fresh prices only: a source that answered with a positive price whose own timestamp, if
 *     it gives one, is at most `maxAgeSeconds` old (and not over a minute in the future);
 *  2. the median of those fresh prices is the reference;
 *  3. a fresh price agrees when it is within `maxSpreadBps` of that reference
 *     (|price - reference| x 10,000 <= maxSpreadBps x reference); the others are outliers;
 *  4. with at least `minSources` agreeing prices, the answer is the median of the agreeing
 *     ones, rounded half-even to 6 decimals; otherwise there is no price.
 * The median of an even count is the mean of the two middle prices.
 */
export function agreeOnPrice(
  observations: PriceObservation[],
  rule: AgreementRule,
  now: Date,
): Agreement {
  const excluded: Excluded[] = [];
  const fresh: { source: string; price: Dec }[] = [];
  for (const observation of observations) {
    if ('problem' in observation) {
      excluded.push({ source: observation.source, reason: observation.problem });
      continue;
    }
    const staleness = stalenessOf(observation, rule, now);
    if (staleness) excluded.push({ source: observation.source, reason: staleness });
    else fresh.push({ source: observation.source, price: observation.price });
  }
  if (fresh.length === 0) {
    return { agreed: false, reason: 'no fresh price', used: [], excluded };
  }
  const reference = median(fresh.map((f) => f.price));
  const agreeing = fresh.filter((f) => {
    const agrees = withinBps(f.price, reference, rule.maxSpreadBps);
    if (!agrees) {
      excluded.push({
        source: f.source,
        reason: `${f.price.toFixed()} is more than ${rule.maxSpreadBps} bps from the median ${reference.toFixed()}`,
      });
    }
    return agrees;
  });
  const used = agreeing.map((a) => a.source);
  if (agreeing.length < rule.minSources) {
    return {
      agreed: false,
      reason: `${agreeing.length} agreeing fresh price(s), at least ${rule.minSources} needed`,
      used,
      excluded,
    };
  }
  const price = median(agreeing.map((a) => a.price)).toDecimalPlaces(
    RATE_DECIMALS,
    Dec.ROUND_HALF_EVEN,
  );
  return { agreed: true, price, used, excluded };
}

function stalenessOf(
  observation: { price: Dec; observedAt?: Date },
  rule: AgreementRule,
  now: Date,
): string | undefined {
  if (!observation.price.isFinite() || observation.price.lte(0)) {
    return `price ${observation.price.toString()} is not positive`;
  }
  if (!observation.observedAt) return undefined;
  const ageMs = now.getTime() - observation.observedAt.getTime();
  if (Number.isNaN(ageMs)) return 'timestamp is not a date';
  if (ageMs > rule.maxAgeSeconds * 1000) {
    return `stale: ${Math.floor(ageMs / 1000)} s old, at most ${rule.maxAgeSeconds} s`;
  }
  if (-ageMs > MAX_FUTURE_SKEW_SECONDS * 1000) {
    return `timestamp ${Math.ceil(-ageMs / 1000)} s in the future`;
  }
  return undefined;
}

/** The middle value; for an even count the exact mean of the two middle values. */
export function median(values: Dec[]): Dec {
  if (values.length === 0) throw new RangeError('median of no values');
  const sorted = [...values].sort((a, b) => a.comparedTo(b));
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[middle];
  return sorted[middle - 1].plus(sorted[middle]).div(2);
}

function withinBps(price: Dec, reference: Dec, bps: number): boolean {
  return price
    .minus(reference)
    .abs()
    .times(10_000)
    .lte(reference.times(dec(bps)));
}
