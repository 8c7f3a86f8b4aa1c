import type { ConfigSection } from './config-docs-types';

/**
 * What each setting of the processes, secrets, limits, webhooks and logs means to an operator: the text of docs/configuration.md and
 * .env.example (`npm run docs:generate`). Defaults, types and ranges come from `configSchema`
 * itself; a `default` here is only for settings whose schema has none (it depends on
 * ONRAMP_ENV or is derived at start).
 */
export const SERVICE_CONFIG_SECTIONS: ConfigSection[] = [
  {
    title: 'Processes and listeners',
    fields: {
      ONRAMP_ENV: {
        text: '`sandbox` or `production`. One deployment serves one environment: `sk_test_`/`rk_test_` keys in sandbox, `sk_live_`/`rk_live_` keys in production.',
      },
      PORT: { text: 'Gateway HTTP port.' },
      JOBS_PORT: {
        text: "Job runner's HTTP port (`GET /health` and `GET /metrics` only, on `HOST`). `0`: any free port, logged as `metrics_url` in the `ready` line.",
      },
      HOST: {
        text: "Listen address of the gateway and of the job runner's `/health` and `/metrics`. `0.0.0.0` accepts other machines (the Docker image sets it).",
      },
      INTERNAL_PORT: {
        text: "Gateway's internal listener: `GET /metrics` and `POST /admin/graphql`, never on `PORT`. `0`: any free port, logged as `internal_url`.",
      },
      INTERNAL_HOST: {
        text: 'Listen address of the internal listener. Keep it off the internet; `0.0.0.0` only on a private network.',
      },
      TRUST_PROXY: {
        text: "Whose X-Forwarded-For gives the client address: `false` (the peer), `true` (one proxy: the address it appended, the last, never the client's leftmost), a hop count, or proxy addresses/CIDRs (safest: the header of anyone else is ignored).",
      },
      PUBLIC_URL: {
        text: 'Public base URL of the gateway, the start of payer resolution links. Production refuses to create links until it is an https URL.',
        default: 'sandbox: `http://HOST:PORT`; production: unset (no links)',
      },
      DOCS_ENABLED: {
        text: '`true`/`false`: serve the rendered REST reference at `/docs`. Unset: on in the sandbox, off in production (404).',
        default: 'on in the sandbox, off in production',
      },
      GRAPHIQL_ENABLED: {
        text: '`true`/`false`: serve GraphiQL at `/graphiql`. Unset: on in the sandbox, off in production (404).',
        default: 'on in the sandbox, off in production',
      },
      DASHBOARD_SESSION_SECONDS: { text: 'How long a dashboard sign-in lasts (12 h).' },
      SHUTDOWN_TIMEOUT_MS: {
        text: 'On SIGTERM, how long in-flight requests, jobs and webhook attempts may take before the process exits anyway.',
      },
    },
  },
  {
    title: 'Database and job store',
    fields: {
      DATABASE_WAIT_SECONDS: {
        text: 'How long a gateway or job runner waits at start for the database to answer (0: as long as it takes); meanwhile `/livez` answers 200 and `/readyz` 503; past it the process exits 69 (docs/cli.md).',
      },
      DATABASE_URL: {
        text: '`postgres://` or `postgresql://` URL. Unset: `npm start` runs an embedded PostgreSQL. Required by `npm run gateway` and `npm run jobs`.',
      },
      DB_POOL_MAX: { text: 'Maximum database connections per process.' },
      AGENDA_MONGODB_URL: {
        text: 'Unset: Agenda stores its jobs in PostgreSQL, table `agenda_jobs` in the same database. Set (`mongodb://...`): Agenda uses this MongoDB instead.',
      },
      JOB_POLL_MS: { text: "Agenda's poll interval in milliseconds." },
    },
  },
  {
    title: 'Secrets',
    fields: {
      ENCRYPTION_KEY: {
        text: '32 random bytes (64 hex or base64) sealing webhook secrets, stored idempotent responses and onramp customer records. Required in production; custody and rotation: [operations.md](operations.md#encryption_key).',
        default:
          'production: required; sandbox: `npm start` generates `.data/encryption-key`, other starts use a public development key (and warn)',
      },
      ENCRYPTION_KEY_PREVIOUS: {
        text: 'Comma list of keys being rotated out: they still open stored values, never seal new ones.',
      },
      CLIENT_SECRET_GRACE_SECONDS: {
        text: 'A client secret keeps working this long after its onramp stops taking money (EXPIRED, COMPLETED, DEACTIVATED).',
      },
      IDEMPOTENCY_LEASE_SECONDS: {
        text: "Idempotency-Key lease, by the database's clock: renewed by the running request; not renewed this long (its process died), the next retry takes the key.",
      },
    },
  },
  {
    title: 'Limits',
    fields: {
      RATE_LIMIT_PER_MINUTE: {
        text: 'Requests per minute per API key, shared by all gateway instances.',
      },
      RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: {
        text: 'Failed authentications per minute per client address (IPv6: per /64), wherever presented (header, cookie, sign-in body, `connectionParams`); past it, 429 until the minute ends, right keys too, bar one already in use there before.',
      },
      API_KEY_CACHE_TTL_MS: {
        text: 'How long (ms, at most 1000) a gateway may answer an API key lookup from memory. Revocations reach every gateway at once through NOTIFY; while that LISTEN is down nothing is cached. `0`: every request reads its key from the database.',
      },
      ONRAMP_DAILY_LIMIT: {
        text: 'Onramps a merchant may create per Africa/Lagos day; the next one freezes the merchant.',
      },
      DEPOSIT_LIMIT_USD: {
        text: 'Per-deposit limit in USD at the applied rate; a larger transfer is FLAGGED.',
      },
      MERCHANT_DAILY_LIMIT_USD: { text: 'Per-merchant limit per Africa/Lagos day.' },
      SYSTEM_DAILY_LIMIT_USD: { text: 'Whole-deployment limit per Africa/Lagos day.' },
      WITHDRAWAL_MIN_USD: {
        text: 'Smallest withdrawal accepted, in USD; a smaller `amount` is 400 `invalid_parameter`.',
      },
      WITHDRAWAL_ADDRESS_DELAY_SECONDS: {
        text: 'How long a new withdrawal address book entry waits before withdrawals may go to it, and how long a widening settings change waits (`pending_changes`).',
        default: '`86400` in production, `60` in the sandbox',
      },
      WS_MAX_SOCKETS_PER_KEY: {
        text: "Websockets one credential (a secret key with its dashboard sessions, or one onramp's client secret) may hold open on one gateway; one more is closed with 4429.",
      },
      WS_MAX_SUBSCRIPTIONS_PER_SOCKET: {
        text: 'Active subscriptions on one websocket; the next one gets an error (`RATE_LIMITED`).',
      },
      WS_MAX_SUBSCRIPTIONS_PER_KEY: {
        text: "Active subscriptions over all of one credential's websockets on one gateway; the next one gets an error.",
      },
      WS_CREDENTIAL_RECHECK_SECONDS: {
        text: 'How often a gateway re-reads the credentials of its open websockets (revocations close them at once; this catches a missed notice).',
      },
    },
  },
  {
    title: 'Webhooks',
    fields: {
      WEBHOOK_TIMEOUT_MS: {
        text: 'One deadline for a whole webhook attempt (lookup, connect, request, headers, body); then its connection is closed. No answer by then: failed (and retried).',
      },
      WEBHOOK_ALLOW_PRIVATE: {
        text: '`true`: webhook URLs may point at loopback/private/link-local addresses (`npm start` sets it in the sandbox only, unless set). Else refused when set and on every attempt.',
      },
      WEBHOOK_POLL_MS: {
        text: 'How often a job runner looks for webhook retries that are due (first attempts are sent at once).',
      },
      WEBHOOK_CONCURRENCY: { text: 'Webhook attempts one job runner keeps in flight.' },
      WEBHOOK_ENDPOINT_CONCURRENCY: {
        text: 'Of those, at most this many to one endpoint, so a slow endpoint cannot hold up others.',
      },
      WEBHOOK_SECRET_ROTATION_SECONDS: {
        text: 'After a secret rotation, the previous secret also signs for this long.',
      },
      WEBHOOK_TEST_AND_REPLAY_PER_HOUR: {
        text: "Webhook tests and replays one merchant may ask for per clock hour, together, over every gateway (429 `rate_limited` past it). The operator's replays are not counted.",
      },
    },
  },
  {
    title: 'Logs and metrics',
    fields: {
      LOG_LEVEL: {
        text: '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`. Logs are JSON lines on standard output.',
      },
      LOG_SYNC: {
        default: '`false`',
        text: '`true`: every log line is written before the process goes on. Default: lines are written in the background, in batches of 4 KiB or every 100 ms, whichever comes first; they are flushed on exit, but a process killed outright loses the last 100 ms.',
      },
      LOG_BUFFER_MAX_BYTES: {
        text: 'With `LOG_SYNC=false`: log bytes a process keeps while standard output is not taking them; lines beyond are dropped and counted (`onramp_log_lines_dropped_total`). At least 65536. `LOG_SYNC=true` waits for the reader instead.',
      },
      DEPOSITS_GAUGE_REFRESH_SECONDS: {
        text: 'How often each process counts deposits by status for the `onramp_deposits` gauge.',
      },
    },
  },
];
