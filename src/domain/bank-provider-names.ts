/** The names `BANK_PROVIDERS` takes; `{provider}` in `POST /bank/{provider}/notifications`. */
export const BANK_PROVIDER_NAMES = ['sandbox', 'hmac', 'paystack', 'monnify'] as const;
export type BankProviderName = (typeof BANK_PROVIDER_NAMES)[number];
