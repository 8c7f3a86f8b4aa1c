import { z } from 'zod';
import { optionalUrl, positiveInt } from './config-fields';
import { BANK_PROVIDER_NAMES, type BankProviderName } from './domain/bank-provider-names';

const providerList = z
  .string()
  .default('sandbox')
  .transform((text, ctx): BankProviderName[] => {
    const names = text.split(',').map((part) => part.trim().toLowerCase());
    for (const name of names) {
      if (!(BANK_PROVIDER_NAMES as readonly string[]).includes(name)) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message: `unknown provider "${name}"; each must be one of ${BANK_PROVIDER_NAMES.join(', ')}`,
        });
        return z.NEVER;
      }
    }
    if (new Set(names).size !== names.length) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'names a provider twice' });
      return z.NEVER;
    }
    return names as BankProviderName[];
  });

/** A provider's API address: its live one by default; tests point it at a stand-in. */
const baseUrl = (live: string) => z.string().url().default(live);

/** Bank providers (spread into `configSchema`): which ones, their credentials, the sandbox bank. */
export const bankConfigFields = {
  /**
   * The bank providers, in order of preference: new accounts come from the first healthy one
   * that can serve the onramp; the next serves when it fails (failover). Notifications from
   * every one listed are accepted at `POST /bank/{provider}/notifications`.
   */
  BANK_PROVIDERS: providerList,
  /** Timeout of each call to a provider's API. */
  BANK_PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** How long a provider that failed (account creation or health check) is passed over. */
  BANK_PROVIDER_COOLDOWN_SECONDS: positiveInt(60),
  /** How often each process checks every bank provider's API (`/health`, failover). */
  BANK_PROVIDER_CHECK_SECONDS: positiveInt(30),
  /** How often the runner asks each provider for transfers no notification brought. */
  BANK_SWEEP_SECONDS: positiveInt(300),
  /** How far back each sweep looks (a notification lost longer ago is the operator's). */
  BANK_SWEEP_LOOKBACK_HOURS: positiveInt(48),
  /** Paystack: the integration's secret key (`sk_live_...`); it also signs notifications. */
  PAYSTACK_SECRET_KEY: z.string().min(8).optional(),
  PAYSTACK_BASE_URL: baseUrl('https://api.paystack.co'),
  /** Paystack's bank slug for new dedicated accounts (`GET /dedicated_account/available_providers`). */
  PAYSTACK_PREFERRED_BANK: z.string().min(1).max(64).default('wema-bank'),
  /** Monnify: API key and secret key (the secret also signs notifications), contract code. */
  MONNIFY_API_KEY: z.string().min(4).optional(),
  MONNIFY_SECRET_KEY: z.string().min(8).optional(),
  MONNIFY_CONTRACT_CODE: z.string().min(1).max(64).optional(),
  MONNIFY_BASE_URL: baseUrl('https://api.monnify.com'),
  /** Monnify: the wallet account returns are paid from (disbursements' `sourceAccountNumber`). */
  MONNIFY_SOURCE_ACCOUNT: z
    .string()
    .regex(/^[0-9]{10}$/, 'must be a 10-digit account number')
    .optional(),
  /** Monnify: bank codes for new reserved accounts, comma-separated (unset: all available). */
  MONNIFY_PREFERRED_BANKS: z
    .string()
    .regex(/^[0-9]{3,6}(,[0-9]{3,6})*$/, 'must be comma-separated bank codes such as 50515')
    .optional(),
  /**
   * How long the sandbox bank takes to notify the outcome of a return it accepted, like a real
   * bank's "processing" before its signed notification. 0: notified at once (still async).
   */
  SANDBOX_BANK_RETURN_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(500),
  /**
   * The gateway's base URL (e.g. http://127.0.0.1:4000). With `BANK_WEBHOOK_SECRET` set, the
   * sandbox bank POSTs each return notification there, signed, to `/v1/bank/notifications`
   * as a real bank would; unset, it hands the notification to the same handler in-process.
   */
  SANDBOX_BANK_GATEWAY_URL: optionalUrl,
};

type BankSettings = z.infer<z.ZodObject<typeof bankConfigFields>> & {
  BANK_WEBHOOK_SECRET?: string;
};

/** The settings each provider in `BANK_PROVIDERS` needs and lacks, as `NAME: message`. */
export function bankProviderProblems(config: BankSettings): { path: string; message: string }[] {
  const needs: Record<BankProviderName, (keyof BankSettings)[]> = {
    sandbox: [],
    hmac: ['BANK_WEBHOOK_SECRET'],
    paystack: ['PAYSTACK_SECRET_KEY'],
    monnify: [
      'MONNIFY_API_KEY',
      'MONNIFY_SECRET_KEY',
      'MONNIFY_CONTRACT_CODE',
      'MONNIFY_SOURCE_ACCOUNT',
    ],
  };
  return config.BANK_PROVIDERS.flatMap((provider) =>
    needs[provider]
      .filter((name) => config[name] === undefined)
      .map((name) => ({
        path: name,
        message: `is required when BANK_PROVIDERS lists ${provider}`,
      })),
  );
}

/** True when the sandbox bank is among the providers (production refuses it). */
export function bankProvidersAreSimulated(config: { BANK_PROVIDERS: BankProviderName[] }): boolean {
  return config.BANK_PROVIDERS.includes('sandbox');
}
