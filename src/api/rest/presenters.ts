import type { Rate } from '../../db/entities/rate.entity';

/** REST shapes (snake_case). Rates are JSON numbers as the spec shows; money amounts elsewhere are strings. */
export function presentRate(rate: Rate) {
  return {
    rate_id: rate.id,
    from: rate.from,
    to: rate.to,
    rate: Number(rate.rate),
    inverse_rate: Number(rate.inverseRate),
    fee_bps: rate.feeBps,
    market_rate: Number(rate.marketRate),
    min_deposit_ngn: Number(rate.minDepositNgn),
    created_at: rate.createdAt.toISOString(),
    expires_at: rate.expiresAt.toISOString(),
  };
}
