import { z } from 'zod';
import { positiveInt } from './config-fields';

/** The market price sources `RATE_SOURCES` may name (docs/providers-rates.md). */
export const REAL_RATE_SOURCES = ['quidax', 'luno', 'coinbase', 'coingecko'] as const;
export type RealRateSourceName = (typeof REAL_RATE_SOURCES)[number];
export const RATE_SOURCE_NAMES = ['sandbox', ...REAL_RATE_SOURCES] as const;
export type RateSourceName = (typeof RATE_SOURCE_NAMES)[number];

const isRateSourceName = (name: string): name is RateSourceName =>
  (RATE_SOURCE_NAMES as readonly string[]).includes(name);

/** A base URL: the live address by default, a stand-in's in tests. No query or fragment. */
const baseUrl = (live: string) =>
  z
    .string()
    .refine(isHttpBaseUrl, 'must be an http or https URL without a query or fragment')
    .default(live)
    .transform((text) => text.replace(/\/+$/, ''));

function isHttpBaseUrl(text: string): boolean {
  if (!/^https?:\/\/[^?#]+$/.test(text)) return false;
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Where market rates come from (docs/api.md "Real providers (v0.3)"), spread into `configSchema`.
 * The rule that turns several prices into one is `agreeOnPrice` (src/domain/rate-agreement.ts).
 */
export const rateConfigFields = {
  /**
   * Comma-separated source names: `sandbox` (the simulated walk, default) or any of quidax,
   * luno, coinbase, coingecko. The sandbox is never mixed with real sources.
   */
  RATE_SOURCES: z
    .string()
    .default('sandbox')
    .transform((text, ctx): RateSourceName[] => {
      const names = text.split(',').map((part) => part.trim());
      const problem = rateSourceListProblem(names);
      if (problem) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
        return z.NEVER;
      }
      return names as RateSourceName[];
    }),
  /** Fresh prices that must agree before a rate is published (real sources only). */
  RATE_SOURCES_MIN: positiveInt(2),
  /** How far (bps) from the median of the fresh prices a price may be and still agree. */
  RATE_SOURCES_MAX_SPREAD_BPS: z.coerce.number().int().min(0).max(10_000).default(150),
  /** A price whose source's own timestamp is older than this is stale and left out. */
  RATE_SOURCES_MAX_AGE_SECONDS: positiveInt(300),
  /** Each source's answer must arrive within this long (all are asked at once). */
  RATE_SOURCE_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(5000),
  QUIDAX_BASE_URL: baseUrl('https://www.quidax.com'),
  LUNO_BASE_URL: baseUrl('https://api.luno.com'),
  COINBASE_BASE_URL: baseUrl('https://api.coinbase.com'),
  COINGECKO_BASE_URL: baseUrl('https://api.coingecko.com'),
  /** CoinGecko's Demo plan key, sent as `x-cg-demo-api-key` (its reference marks it required). */
  COINGECKO_API_KEY: z.string().min(1).optional(),
};

function rateSourceListProblem(names: string[]): string | undefined {
  if (names.some((name) => name === '')) return 'must be a comma-separated list of source names';
  const unknown = names.filter((name) => !isRateSourceName(name));
  if (unknown.length > 0) {
    return `unknown source ${unknown.join(', ')}; known: ${RATE_SOURCE_NAMES.join(', ')}`;
  }
  if (new Set(names).size !== names.length) return 'names a source twice';
  if (names.includes('sandbox') && names.length > 1) {
    return 'sandbox (simulated) cannot be mixed with real sources';
  }
  return undefined;
}

type RateConfig = { RATE_SOURCES: readonly string[]; RATE_SOURCES_MIN: number };

/** True while rates are simulated (the sandbox walk): production must refuse to run so. */
export function rateSourcesAreSimulated(config: { RATE_SOURCES: readonly string[] }): boolean {
  return config.RATE_SOURCES.includes('sandbox');
}

/** Rules between the rate settings, each naming the variable to fix (src/config.ts checks them). */
export function rateSourceProblems(config: RateConfig): { path: string; message: string }[] {
  // Runs even when RATE_SOURCES itself was refused (then it is not a list): nothing to add.
  if (!Array.isArray(config.RATE_SOURCES) || rateSourcesAreSimulated(config)) return [];
  if (config.RATE_SOURCES_MIN <= config.RATE_SOURCES.length) return [];
  return [
    {
      path: 'RATE_SOURCES_MIN',
      message: `is ${config.RATE_SOURCES_MIN} but RATE_SOURCES names only ${config.RATE_SOURCES.length} source(s)`,
    },
  ];
}
