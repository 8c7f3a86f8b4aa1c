/** Destination currencies a rate can quote. USD settles to the merchant balance or either stablecoin. */
export const QUOTE_CURRENCIES = ['USDC', 'USDT', 'USD'] as const;
export type QuoteCurrency = (typeof QUOTE_CURRENCIES)[number];

export function isQuoteCurrency(value: string): value is QuoteCurrency {
  return (QUOTE_CURRENCIES as readonly string[]).includes(value);
}

export const CHAINS = ['BASE', 'ETHEREUM', 'POLYGON'] as const;
export type Chain = (typeof CHAINS)[number];

/** Minimum NGN deposit per chain: covers gas (spec: 1,500 NGN, about 1 USD, on each chain). */
export const MIN_DEPOSIT_NGN_BY_CHAIN: Record<Chain, number> = {
  BASE: 1500,
  ETHEREUM: 1500,
  POLYGON: 1500,
};

/** A rate carries the default minimum; chain-specific minimums apply at deposit time. */
export const DEFAULT_MIN_DEPOSIT_NGN = 1500;
