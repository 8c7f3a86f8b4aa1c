/**
 * The baseline of the reads benchmark (bench/reads.bench.ts): a bare node:http server in its
 * own process (forked, as the gateway is its own process) answering `GET /deposits/:id` with
 * the same SQL statements the gateway's `GET /v1/deposits/{id}` runs per request, over a `pg`
 * Pool of the gateway's size, and the same JSON body. No framework, no ORM, no logging, no
 * metrics, no rate limiting: what the read costs with nothing of the service in the way.
 *
 * Per request, as the gateway:
 *   1. the API key lookup (`API_KEY_SQL` of src/merchants/auth.service.ts), 401 when unknown or
 *      revoked;
 *   2. the merchant-scoped deposit select (`DepositQueryService.findView` of
 *      src/deposits/deposit-query.service.ts for a secret key), 404 when none.
 * The gateway's third statement, the rate-limit counter upsert (one per request, or fewer
 * when requests of one key overlap), is NOT run here: it is part of the service's overhead
 * being measured, not of "the same read".
 *
 * `protocol`: `simple` sends each statement as the gateway does (MikroORM inlines the escaped
 * values into the text: one simple-protocol Query message, byte for byte the gateway's
 * statement); `extended` sends `$1` parameters (Parse/Bind/Execute), as a hand-written handler
 * usually would.
 *
 * Started with `fork()`; the parent sends a `BareServerSpec` and receives `{ url }` once
 * listening (127.0.0.1, a free port). SIGTERM closes the server and the pool.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { escapeLiteral, Pool } from 'pg';
// The gateway's statements (copied; test/unit/bench-bare-sql.test.ts keeps them equal).
import { DEPOSIT_SQL, KEY_SQL } from './bare-deposit-sql';

export interface BareServerSpec {
  databaseUrl: string;
  poolMax: number;
  protocol: 'simple' | 'extended';
}

/** `?` -> `$1`, `$2`, ... */
function numbered(sql: string): string {
  let i = 0;
  return sql.replace(/\?/g, () => `$${(i += 1)}`);
}

/** `?` -> each value as an escaped literal, as MikroORM's formatQuery does for strings. */
function inlined(sql: string, values: string[]): string {
  let i = 0;
  return sql.replace(/\?/g, () => escapeLiteral(values[i++]));
}

const BEARER = /^Bearer ([A-Za-z0-9_]{1,200})$/;
const PATH = /^\/deposits\/([^/?]{1,200})$/;

interface DepositRow {
  id: string;
  onramp_id: string;
  merchant_id: string;
  payment_reference: string;
  user_email: string;
  amount_ngn: string;
  bank_reference: string;
  rate_id: string | null;
  amount_asset: string | null;
  asset: string | null;
  chain: string | null;
  tx_hash: string | null;
  status: string;
  failure_reason: string | null;
  flag_reason: string | null;
  sender_name: string | null;
  sender_account_last4: string | null;
  sender_bank: string | null;
  created_at: Date;
  settled_at: Date | null;
  updated_at: Date;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

const error = (code: string, message: string) => ({ error: { code, message } });

/** The REST Deposit body (numeric columns already come back from PostgreSQL at their scale). */
function present(d: DepositRow) {
  return {
    deposit_id: d.id,
    onramp_id: d.onramp_id,
    merchant_id: d.merchant_id,
    payment_reference: d.payment_reference,
    user_email: d.user_email,
    amount_ngn: d.amount_ngn,
    bank_reference: d.bank_reference,
    rate_id: d.rate_id,
    amount_asset: d.amount_asset,
    asset: d.asset,
    chain: d.chain,
    tx_hash: d.tx_hash,
    status: d.status,
    failure_reason: d.failure_reason,
    flag_reason: d.flag_reason,
    payer: {
      account_name: d.sender_name,
      account_number_last4: d.sender_account_last4,
      bank_code: d.sender_bank,
    },
    created_at: d.created_at.toISOString(),
    settled_at: d.settled_at?.toISOString() ?? null,
    updated_at: d.updated_at.toISOString(),
  };
}

function start(spec: BareServerSpec): void {
  const pool = new Pool({ connectionString: spec.databaseUrl, max: spec.poolMax });
  const keySql = numbered(KEY_SQL);
  const depositSql = numbered(DEPOSIT_SQL);
  const query = async <T>(sql: string, numberedSql: string, values: string[]): Promise<T[]> =>
    spec.protocol === 'simple'
      ? (await pool.query(inlined(sql, values))).rows
      : (await pool.query(numberedSql, values)).rows;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = PATH.exec(req.url ?? '');
    if (req.method !== 'GET' || !path) return send(res, 404, error('not_found', 'No route'));
    const bearer = BEARER.exec(req.headers.authorization?.trim() ?? '');
    if (!bearer) return send(res, 401, error('unauthorized', 'Malformed Authorization header'));
    const keyHash = createHash('sha256').update(bearer[1]).digest('hex');
    const [key] = await query<{ merchant_id: string; revoked_at: Date | null }>(KEY_SQL, keySql, [
      keyHash,
    ]);
    if (!key || key.revoked_at) return send(res, 401, error('unauthorized', 'Unknown API key'));
    const [deposit] = await query<DepositRow>(DEPOSIT_SQL, depositSql, [
      decodeURIComponent(path[1]),
      key.merchant_id,
    ]);
    if (!deposit) return send(res, 404, error('not_found', 'No deposit'));
    send(res, 200, present(deposit));
  }

  const server = createServer((req, res) => {
    // The request has no body; answer once it has been read.
    req.resume();
    handle(req, res).catch((err: unknown) =>
      send(res, 500, error('internal_error', String((err as Error)?.message ?? err))),
    );
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.send!({ url: `http://127.0.0.1:${port}` });
  });
  process.once('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => void pool.end().then(() => process.exit(0)));
  });
}

process.once('message', (spec: BareServerSpec) => start(spec));
