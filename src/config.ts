import { z } from 'zod';
import { privateKeyToAccount } from 'viem/accounts';
import {
  encryptionKey,
  encryptionKeyList,
  KEY_FORMAT,
  optionalAddress,
  optionalBoolean,
  optionalPositiveInt,
  positiveInt,
  usdAmount,
} from './config-fields';
import { bankConfigFields } from './config-bank';
import { rateConfigFields } from './config-rates';
import { fxConfigFields } from './config-fx';
import { providerProblems } from './config-production';
import { webhookConfigFields } from './config-webhooks';
import { resolutionLinkConfigFields } from './config-resolution-links';
import { readPathConfig } from './config-read-path';
import { logConfigFields } from './config-logs';
import { observabilityConfigFields } from './config-observability';
import { chainConfigFields, chainConfigProblems } from './config-chains';
import { reserveConfigFields } from './config-reserves';
import { databaseConfigFields } from './config-database';

/**
 * Every setting the processes read, validated in one place. A bad value stops start-up
 * with a message naming the variable (see `loadConfig`).
 */
export const configSchema = z.object({
  ONRAMP_ENV: z.enum(['sandbox', 'production']).default('sandbox'),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  /** The job runner's HTTP port (GET /health and /metrics only), on HOST. 0: any free port. */
  JOBS_PORT: z.coerce.number().int().min(0).max(65535).default(4001),
  HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * The gateway's internal listener: `/metrics` and `/admin/graphql`, never on PORT. Loopback by
   * default; 0: any free port.
   */
  INTERNAL_PORT: z.coerce.number().int().min(0).max(65535).default(4002),
  INTERNAL_HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * Fastify's `trustProxy`: whose X-Forwarded-For decides a client's address (allowed_ips and
   * the per-address limit). `false` (default: the socket's peer), `true` (one proxy in front:
   * the address it appended, the header's last; never the leftmost, which the client wrote),
   * a number of hops, or a comma-separated list of proxy addresses/CIDRs.
   */
  TRUST_PROXY: z
    .string()
    .regex(
      /^(true|false|[0-9]{1,2}|(loopback|linklocal|uniquelocal|[0-9A-Fa-f.:/]+)(\s*,\s*(loopback|linklocal|uniquelocal|[0-9A-Fa-f.:/]+))*)$/,
      'must be true, false, a hop count, or proxy addresses/CIDRs (or loopback, linklocal, uniquelocal)',
    )
    .default('false')
    .transform((value): false | number | string[] => {
      if (value === 'false') return false;
      // Fastify's `true` trusts every hop and takes the leftmost address: the client's choice
      // behind a proxy that appends. Ours is one trusted hop.
      if (value === 'true') return 1;
      if (/^[0-9]+$/.test(value)) return Number(value);
      return value.split(',').map((part) => part.trim());
    }),
  ...databaseConfigFields,
  AGENDA_MONGODB_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// URL')
    .optional(),
  RATE_INTERVAL_SECONDS: positiveInt(600),
  RATE_TTL_SECONDS: positiveInt(1800),
  ...rateConfigFields,
  ONRAMP_TTL_SECONDS: positiveInt(1500),
  RATE_LIMIT_PER_MINUTE: positiveInt(100),
  /** Failed authentications a client address may make per minute before it is refused (429). */
  RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: positiveInt(100),
  ...observabilityConfigFields,
  FEE_BPS: z.coerce.number().int().min(0).max(9999).default(50),
  /** Onramps a merchant may create per Africa/Lagos day; the next one freezes the merchant. */
  ONRAMP_DAILY_LIMIT: positiveInt(1000),
  /** The bank that issues virtual accounts (3-digit CBN code) and its display name. */
  VA_BANK_CODE: z
    .string()
    .regex(/^[0-9]{3}$/, 'must be a 3-digit CBN bank code')
    .default('035'),
  VA_BANK_NAME: z.string().min(1).max(100).default('Wema Bank'),
  /** Deposit limits in USD at the applied rate (spec: 1,000 / 10,000 / 100,000 per Lagos day). */
  DEPOSIT_LIMIT_USD: usdAmount('1000'),
  /** Flat NGN the operator keeps from each deposit returned to its payer (at most the deposit). */
  RETURN_FEE_NGN: z
    .string()
    .regex(/^[0-9]{1,12}(\.[0-9]{1,2})?$/, 'must be an NGN amount such as 0 or 100.50')
    .default('0'),
  MERCHANT_DAILY_LIMIT_USD: usdAmount('10000'),
  SYSTEM_DAILY_LIMIT_USD: usdAmount('100000'),
  /**
   * Shared secret of the bank provider's inbound-transfer notifications (HMAC-SHA256). Unset:
   * the notification endpoint is not served.
   */
  BANK_WEBHOOK_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  /**
   * Crash repair: a settlement batch's claim on its deposits lasts this long; if its runner has
   * not applied the fills by then (killed between placing the FX orders and applying them),
   * the next drain takes the deposits again and places the same orders.
   */
  DEPOSIT_REDRIVE_SECONDS: positiveInt(5),
  /** PENDING_FX deposits a settlement batch claims at most. */
  SETTLEMENT_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(100),
  /**
   * How often each runner's settlement sweep runs: the safety net behind NOTIFY (a notice lost
   * while no runner listened, a claim left by a runner that died), not the live path.
   */
  SETTLEMENT_SWEEP_MS: positiveInt(5000),
  /**
   * A deposit's notice starts settlement this long after, so the deposits that arrive
   * meanwhile settle in one batch (0: at once).
   */
  SETTLEMENT_GATHER_MS: z.coerce.number().int().min(0).max(5_000).default(50),
  /** Sandbox FX venue: milliseconds each batch of orders takes, as a real venue's round trip. */
  SANDBOX_FX_LATENCY_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  ...bankConfigFields,
  ...fxConfigFields,
  JOB_POLL_MS: positiveInt(1000),
  /** How often the runner sends returns to the payer whose notice it missed (safety net). */
  RETURN_SWEEP_SECONDS: positiveInt(5),
  /** How often the job runner expires short-lived onramps past their TTL (reads are exact anyway). */
  EXPIRY_SWEEP_SECONDS: positiveInt(30),
  ...chainConfigFields,
  /** The hot wallet that signs payouts on every chain (0x + 64 hex). */
  HOT_WALLET_PRIVATE_KEY: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x followed by 64 hex digits')
    .optional(),
  /**
   * The hot wallet's address, for processes that must not hold its key (the gateway: treasury
   * view). `npm start` derives it from the local key. The job runner checks it matches the key.
   */
  HOT_WALLET_ADDRESS: optionalAddress,
  /**
   * Seals webhook secrets and stored idempotent responses at rest (AES-256-GCM). Required in
   * production; docs/operations.md covers custody and rotation.
   */
  ENCRYPTION_KEY: encryptionKey.optional(),
  /** Keys being rotated out (comma list): they still open values, never seal new ones. */
  ENCRYPTION_KEY_PREVIOUS: encryptionKeyList.optional(),
  /**
   * A client secret keeps working this long after its onramp stops taking money (EXPIRED,
   * COMPLETED, DEACTIVATED), so a checkout page can keep showing the deposit's progress.
   */
  CLIENT_SECRET_GRACE_SECONDS: z.coerce.number().int().min(0).default(86_400),
  /**
   * A running request renews its Idempotency-Key claim every third of this; a claim not renewed
   * this long belongs to a process that died, and the next retry takes the key over.
   */
  IDEMPOTENCY_LEASE_SECONDS: positiveInt(60),
  /** A broadcast payout not mined after this long is replaced at the same nonce with higher fees. */
  PAYOUT_STUCK_SECONDS: positiveInt(120),
  /**
   * How often the payout sweep runs: chains' health, payouts whose signing notice was lost,
   * SIGNED payouts the block follower missed (receipts), fee bumps and resends. A repair
   * path: the live one is the signing drain and the block follower.
   */
  PAYOUT_POLL_MS: positiveInt(5000),
  /** How often the job runner asks each chain for its head, to settle payouts block by block. */
  PAYOUT_BLOCK_POLL_MS: positiveInt(250),
  /**
   * A new payout's notice starts its chain's signing round this long after, so the payouts
   * that arrive meanwhile are signed together (0: at once).
   */
  PAYOUT_SIGN_GATHER_MS: z.coerce.number().int().min(0).max(10_000).default(250),
  /**
   * While the runner follows a chain's blocks, the sweep checks only SIGNED payouts signed
   * longer ago than this (the follower's misses, fee bumps, dropped transactions).
   */
  PAYOUT_CONFIRM_GRACE_MS: z.coerce.number().int().min(0).default(5000),
  /** A payout waiting for a chain that is down this long FLAGs its deposit (docs/api.md, "Deposits": 24 h). */
  CHAIN_OUTAGE_MAX_SECONDS: positiveInt(86_400),
  /** File of blocklisted destination addresses, one per line ('#' comments); risk review refuses them. */
  RISK_BLOCKLIST_FILE: z.string().min(1).optional(),
  /** A sanctions list file put in force at start instead of the shipped OFAC snapshot (docs/cli.md). */
  SANCTIONS_LIST_PATH: z.string().min(1).optional(),
  /** Smallest withdrawal accepted, in USD (a transfer must be worth its gas). */
  WITHDRAWAL_MIN_USD: usdAmount('1'),
  /**
   * How long a new withdrawal address book entry waits before it may receive withdrawals.
   * Unset: 86,400 (a day) in production, 60 in the sandbox.
   */
  WITHDRAWAL_ADDRESS_DELAY_SECONDS: optionalPositiveInt,
  /** Block time of the local anvil chains `npm start` runs, in seconds. */
  LOCAL_CHAIN_BLOCK_SECONDS: positiveInt(1),
  ...webhookConfigFields,
  ...reserveConfigFields,
  /**
   * graphql-ws caps, counted per gateway process: sockets one credential (an API key with its
   * dashboard sessions, or one onramp's client secret) may hold open; a socket past it closes
   * with 4429.
   */
  WS_MAX_SOCKETS_PER_KEY: positiveInt(200),
  /** Active subscriptions on one socket; the next one gets an error (rate_limited). */
  WS_MAX_SUBSCRIPTIONS_PER_SOCKET: positiveInt(100),
  /** Active subscriptions over all of one credential's sockets on this gateway. */
  WS_MAX_SUBSCRIPTIONS_PER_KEY: positiveInt(1000),
  /**
   * How often a gateway reads the credentials of all its open sockets again. Revocations close
   * sockets at once through NOTIFY; this only catches one sent while the LISTEN was reconnecting.
   */
  WS_CREDENTIAL_RECHECK_SECONDS: positiveInt(30),
  /** How long a dashboard sign-in lasts. */
  DASHBOARD_SESSION_SECONDS: positiveInt(12 * 60 * 60),
  /**
   * The rendered REST reference at /docs (Swagger UI over /v1/openapi.json) and GraphiQL at
   * /graphiql. Unset: on in the sandbox, off in production (404 there unless turned on).
   */
  DOCS_ENABLED: optionalBoolean,
  GRAPHIQL_ENABLED: optionalBoolean,
  /** On SIGTERM, how long in-flight requests, jobs and webhook attempts may take to finish. */
  SHUTDOWN_TIMEOUT_MS: positiveInt(25_000),
  ...logConfigFields,
  ...resolutionLinkConfigFields,
  ...readPathConfig,
});

/** Rules between variables; each problem names the variable to fix. */
const checkedConfigSchema = configSchema.superRefine((config, ctx) => {
  for (const problem of providerProblems(config)) ctx.addIssue({ code: 'custom', ...problem });
  for (const problem of chainConfigProblems(config)) ctx.addIssue({ code: 'custom', ...problem });
  if (config.ONRAMP_ENV === 'production' && !config.ENCRYPTION_KEY) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['ENCRYPTION_KEY'],
      message: `is required in production (it seals secrets at rest); ${KEY_FORMAT}`,
    });
  }
  if (
    config.HOT_WALLET_PRIVATE_KEY &&
    config.HOT_WALLET_ADDRESS &&
    privateKeyToAccount(config.HOT_WALLET_PRIVATE_KEY as `0x${string}`).address.toLowerCase() !==
      config.HOT_WALLET_ADDRESS.toLowerCase()
  ) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['HOT_WALLET_ADDRESS'],
      message: 'is not the address of HOT_WALLET_PRIVATE_KEY',
    });
  }
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/** Empty strings count as unset, so `FOO= npm start` behaves like no FOO at all. */
function withoutEmpty(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '',
    ),
  );
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = checkedConfigSchema.safeParse(withoutEmpty(env));
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
    );
  }
  return parsed.data;
}

/** Start-up helper for process entry points: print the problem and exit non-zero. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}
