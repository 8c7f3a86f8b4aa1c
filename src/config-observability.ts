import { z } from 'zod';
import { optionalBoolean, optionalUrl, positiveInt } from './config-fields';

/**
 * Metrics and tracing settings (docs/observability.md), spread into `configSchema`. The
 * OTEL_* names and meanings are OpenTelemetry's own (its SDK environment variables); only
 * what the service itself decides with is read here, the exporter reads the rest
 * (OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_TIMEOUT, OTEL_BSP_*, OTEL_TRACES_SAMPLER...).
 */
export const observabilityConfigFields = {
  /** How often processes count deposits by status for the `onramp_deposits` gauge. */
  DEPOSITS_GAUGE_REFRESH_SECONDS: positiveInt(15),
  /**
   * A payout (an AUTO_WITHDRAW deposit's or a withdrawal's) still PENDING or SIGNED this long
   * after it was created counts in `onramp_payouts_stuck`. The default, 30 minutes, is past
   * any normal wait (a gathered signing round, a block, the fee bumps that start after
   * PAYOUT_STUCK_SECONDS) and well inside
   * CHAIN_OUTAGE_MAX_SECONDS, so an outage is seen long before its payouts are cancelled.
   */
  PAYOUT_STUCK_ALERT_SECONDS: positiveInt(1800),
  /**
   * How long a scrape-time gauge read from the database (rate age, stuck payouts, webhook
   * backlog, job queue) is reused by the next scrapes: a scrape storm costs the database one
   * query per gauge per this many seconds. Ages are still computed at each scrape. 0: no reuse.
   */
  METRICS_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(5),
  /**
   * The commit to report in `onramp_build_info` when the build could not record it (an image
   * built from a tree without .git).
   */
  ONRAMP_COMMIT: z.string().min(1).max(64).optional(),
  /**
   * OpenTelemetry: the OTLP/HTTP base URL spans are exported to (`/v1/traces` is appended).
   * Tracing is off while neither this nor OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  /** OpenTelemetry: the full URL spans are sent to, used as is (wins over the base URL). */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl,
  /**
   * OpenTelemetry: the OTLP transport. Only `http/json` is built in (every OTLP/HTTP receiver
   * accepts it); unset means the same.
   */
  OTEL_EXPORTER_OTLP_PROTOCOL: z.literal('http/json').optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.literal('http/json').optional(),
  /** OpenTelemetry: `none` turns tracing off even with an endpoint set; `otlp` (default). */
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none']).optional(),
  /** OpenTelemetry: true turns tracing off whatever else is set. */
  OTEL_SDK_DISABLED: optionalBoolean,
  /** OpenTelemetry: the service name on every span; default `onramp-gateway` / `onramp-jobs`. */
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
};

/** Where spans go, or null when tracing is off (the default). */
export function tracesUrl(config: {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
  OTEL_TRACES_EXPORTER?: 'otlp' | 'none';
  OTEL_SDK_DISABLED?: boolean;
}): string | null {
  if (config.OTEL_SDK_DISABLED === true || config.OTEL_TRACES_EXPORTER === 'none') return null;
  if (config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : null;
}
