import type { ConfigSection } from './config-docs-types';

/**
 * What the operator gauges' and tracing settings mean (docs/observability.md): the text of
 * docs/configuration.md and .env.example (`npm run docs:generate`), beside
 * config-docs-service.ts and config-docs-money.ts.
 */
export const OBSERVABILITY_CONFIG_SECTIONS: ConfigSection[] = [
  {
    title: 'Operator gauges and tracing',
    fields: {
      PAYOUT_STUCK_ALERT_SECONDS: {
        text: "A payout still PENDING or SIGNED this long after it was created counts in `onramp_payouts_stuck` (by chain, status and kind, with the oldest one's age). Past any normal wait (signing round, a block, fee bumps after `PAYOUT_STUCK_SECONDS`) and well inside `CHAIN_OUTAGE_MAX_SECONDS`.",
      },
      METRICS_CACHE_SECONDS: {
        text: "How long the runner's scrape-time database gauges (rate age, stuck payouts, webhook backlog, job queue) are reused by later scrapes, so a scrape storm costs one query per gauge per period. Ages are still computed at each scrape. `0`: read at every scrape.",
      },
      ONRAMP_COMMIT: {
        text: 'The commit reported by `onramp_build_info` when the build could not record one (an image built from a tree without `.git`). Unset: the commit the build recorded, else empty.',
      },
      OTEL_EXPORTER_OTLP_ENDPOINT: {
        text: 'OpenTelemetry: the OTLP/HTTP base URL spans are exported to (`/v1/traces` is appended). Tracing is off (no SDK loaded, nothing stored) while neither this nor `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set. Other `OTEL_*` variables (headers, timeout, batching, sampler) are read by the exporter itself.',
      },
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: {
        text: 'OpenTelemetry: the full URL spans are sent to, used as is; wins over `OTEL_EXPORTER_OTLP_ENDPOINT`.',
      },
      OTEL_EXPORTER_OTLP_PROTOCOL: {
        text: 'OpenTelemetry: the OTLP transport. Only `http/json` is built in (every OTLP/HTTP receiver accepts it); unset means the same.',
      },
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: {
        text: 'The same, for traces only.',
      },
      OTEL_TRACES_EXPORTER: {
        text: '`none` turns tracing off even with an endpoint set; `otlp` (the default) exports.',
      },
      OTEL_SDK_DISABLED: {
        text: '`true` turns tracing off whatever else is set.',
      },
      OTEL_SERVICE_NAME: {
        default: '`onramp-gateway` / `onramp-jobs`',
        text: 'The service name on every span of the process.',
      },
    },
  },
];
