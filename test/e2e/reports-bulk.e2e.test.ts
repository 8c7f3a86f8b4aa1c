import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { parse } from 'csv-parse/sync';
import { createTestDatabase, forgetTestDatabase } from '../support/db';
import { createMerchant, startStack, type Stack } from '../support/stack';
import { request } from '../support/http';
import { settledBalanceDeposit } from '../support/onramps';
import { sql } from '../support/sql';
import { lagosDay } from '../../src/domain/lagos-day';

// USD and NGN amounts are summed exactly, in millionths, never as floats.
const micro = (value: string): bigint => {
  const negative = value.startsWith('-');
  const [whole, fraction = ''] = value.replace('-', '').split('.');
  const m = BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
  return negative ? -m : m;
};

type Row = Record<string, string>;
const rows = (text: string): Row[] => parse(text, { columns: true }) as Row[];

/** The gateway's resident memory now, in bytes (Linux). */
function residentBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Number(/(\d+)/.exec(line)![1]) * 1024;
}

/**
 * Downloads a report through a real socket, reading it as it streams, while sampling the
 * gateway's resident memory every 20 ms: the highest growth over the memory before it. With
 * `whilePaused`, the client stops reading after the first bytes, runs it, and reads on.
 */
function download(
  stack: Stack,
  path: string,
  key: string,
  whilePaused?: () => Promise<void>,
): Promise<{ status: number; type: string; text: string; growth: number; chunks: number }> {
  const pid = stack.gateways[0].child.pid!;
  const before = residentBytes(pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, residentBytes(pid));
  }, 20);
  const { hostname, port } = new URL(stack.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { hostname, port, path, headers: { authorization: `Bearer ${key}` }, agent: false },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          parts.push(chunk);
          if (parts.length !== 1 || !whilePaused) return;
          res.pause();
          whilePaused().then(() => res.resume(), reject);
        });
        res.on('error', reject);
        res.on('end', () => {
          clearInterval(sampler);
          peak = Math.max(peak, residentBytes(pid));
          resolve({
            status: res.statusCode!,
            type: String(res.headers['content-type']),
            text: Buffer.concat(parts).toString('utf8'),
            growth: peak - before,
            chunks: parts.length,
          });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The issue's figure: a month of 100,000 deposits. */
const COPIES = 100_000;

describe('reconciliation exports of 100,000 deposits', () => {
  let stack: Stack;
  let databaseUrl: string;
  const today = lagosDay(new Date());
  const get = (path: string, k: string) => request(stack.url, 'GET', path, { key: k });
  const t0 = Date.now();
  const lap = (what: string) => console.log(`reports-bulk: ${what} at ${Date.now() - t0} ms`);

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    // The copies' ledger is a fixture: each credit balances, but the copies have no NGN leg,
    // events or onramp of their own, so the after-all ledger check (which would rightly refuse
    // them) does not read this database.
    forgetTestDatabase(databaseUrl);
    // The bound on memory is the gateway's heap cap: 96 MB of old generation. The export's 100,000
    // rows as objects alone take about 98 MB (measured with node --expose-gc), so a gateway that
    // gathered them, or their CSV, before sending would stop with an out-of-memory error here
    // and the download would fail; streaming holds one thousand-row chunk at a time.
    stack = await startStack(databaseUrl, {
      env: { RATE_LIMIT_PER_MINUTE: '100000', ONRAMP_HEAP_MB: '96' },
    });
  });
  afterAll(() => stack?.stop());

  /** One real deposit through the sandbox bank, settled to the balance: the copies' model. */
  const settledDeposit = (k: string) => settledBalanceDeposit(stack.url, k, '1500');

  async function balances(k: string) {
    const read = await get('/v1/merchant/balance', k);
    expect(read.status).toBe(200);
    return read.body.balances as { usd_available: string; usd_pending_withdrawal: string };
  }

  it('streams 100,000 deposits in bounded memory, parsing back to the ledger', async () => {
    const { api_key: bulkKey, merchant_id: merchantId } = await createMerchant(
      databaseUrl,
      'Bulk Co',
    );
    const { deposit: template } = await settledDeposit(bulkKey);
    lap('template settled');
    await seedDeposits(databaseUrl, merchantId, template.deposit_id, COPIES);
    lap('seeded');
    const balance = await balances(bulkKey);

    // The last 30 Lagos days: the copies span the 29 days before now, the original is today's.
    const period = `from=${lagosDay(new Date(Date.now() - 30 * 86_400_000))}&to=${today}`;
    // Streaming, not gathering then sending: while the client has read only the first bytes,
    // deposits are added at the end of the period. The gateway has not read that far yet (it
    // waits for the client), so they are in the file; a gateway that read everything before
    // sending would have left them out.
    const late = await download(stack, `/v1/reports/deposits.csv?${period}`, bulkKey, () =>
      addLateDeposits(databaseUrl, template.deposit_id, 5),
    );
    const lateIds = rows(late.text)
      .map((r) => r.deposit_id)
      .filter((id) => id.startsWith('dep_late_'));
    expect(lateIds).toEqual([1, 2, 3, 4, 5].map((i) => `dep_late_${i}`));
    await sql(databaseUrl, "delete from deposits where id like 'dep_late_%'");
    lap('deposits.csv streamed while paused');
    const deposits = await download(stack, `/v1/reports/deposits.csv?${period}`, bulkKey);
    lap('deposits.csv downloaded');
    expect(deposits.status).toBe(200);
    expect(deposits.type).toBe('text/csv; charset=utf-8');
    expect(deposits.chunks).toBeGreaterThan(10);
    const exported = rows(deposits.text);
    expect(exported).toHaveLength(COPIES + 1);
    expect(new Set(exported.map((r) => r.deposit_id)).size).toBe(COPIES + 1);
    const order = exported.map((r) => Date.parse(r.created_at));
    expect(order.every((t, i) => i === 0 || order[i - 1] <= t)).toBe(true);
    const total = exported.reduce((s, r) => s + micro(r.amount_asset), 0n);
    expect(total).toBe(micro(balance.usd_available));

    lap('deposits.csv checked');
    const ledger = await download(stack, `/v1/reports/ledger.csv?${period}`, bulkKey);
    lap('ledger.csv downloaded');
    const net = rows(ledger.text).reduce((s, p) => s + micro(p.net), 0n);
    expect(net).toBe(micro(balance.usd_available));

    // Resident memory also counts garbage V8 has not collected yet (Node 24 collects later than
    // Node 20: 79 MB against 8-21 MB for the same export), so it is printed and bounded only
    // loosely; the heap cap above is the real bound. The gateway must still be up.
    console.log(
      `reports: deposits.csv ${deposits.text.length} bytes, gateway grew ${deposits.growth} B; ` +
        `ledger.csv ${ledger.text.length} bytes, grew ${ledger.growth} B`,
    );
    expect(deposits.growth).toBeLessThan(160 * 1024 * 1024);
    expect(ledger.growth).toBeLessThan(160 * 1024 * 1024);
    expect((await request(stack.url, 'GET', '/health')).status).toBe(200);
    expect(stack.gateways[0].child.exitCode).toBeNull();
  }, 300_000);
});

/**
 * `count` deposits of one merchant spread over the 29 days before now, copied from a real
 * settled deposit with new ids, amounts and times (pairs share a created_at, so the export's
 * keyset meets ties, and microseconds a JS Date would drop), and each one's credit to the
 * merchant's balance posted (a balanced transaction each).
 */
async function seedDeposits(
  databaseUrl: string,
  merchantId: string,
  templateId: string,
  count: number,
) {
  const began = Date.now();
  const columns = (
    await sql<{ column_name: string }>(
      databaseUrl,
      "select column_name from information_schema.columns where table_name = 'deposits' and is_generated = 'NEVER' order by ordinal_position",
    )
  ).map((c) => c.column_name);
  const overrides: Record<string, string> = {
    id: `'dep_bulk_' || lpad(i::text, 7, '0')`,
    bank_reference: `'BULK-' || i`,
    created_at: `at`,
    updated_at: `at`,
    settled_at: `at`,
    lagos_day: `(at at time zone 'Africa/Lagos')::date`,
    amount_ngn: `(1500 + i % 5000)::numeric(20, 2)`,
    amount_asset: `((1 + i % 997) || '.' || lpad((i * 7919 % 1000000)::text, 6, '0'))::numeric`,
  };
  const select = columns.map((c) => overrides[c] ?? `t."${c}"`).join(', ');
  await sql(
    databaseUrl,
    `do $$ begin
       set local session_replication_role = replica;
       insert into deposits (${columns.map((c) => `"${c}"`).join(', ')})
       select ${select}
         from deposits t,
              lateral (select g as i,
                              now() - interval '29 days' + (g / 2) * interval '50 seconds'
                                + (g % 1000) * interval '1 microsecond' * (g % 2) as at
                         from generate_series(1, ${count}) g) s
        where t.id = '${templateId}';
     end $$;`,
  );
  console.log(`seed: deposits ${Date.now() - began} ms`);
  await sql(
    databaseUrl,
    `insert into ledger_transactions (id, kind, deposit_id, memo, created_at)
     select 'ltx_bulk_' || substr(d.id, 10), 'deposit_fx', d.id, 'bulk', d.created_at
       from deposits d where d.id like 'dep_bulk_%'`,
  );
  console.log(`seed: transactions ${Date.now() - began} ms`);
  // The postings go in with the ledger's statement trigger off: it checks each transaction
  // with a lookup per transaction that a 200,000-posting statement makes quadratic (minutes;
  // the service's statements carry a settlement batch at most). The balance it would keep is
  // added here from the very rows inserted, in the same transaction.
  await sql(
    databaseUrl,
    `do $$ begin
       set local session_replication_role = replica;
       insert into ledger_postings (transaction_id, account_id, currency, direction, amount)
       select t.id, a.account, 'USD', a.direction, d.amount_asset
         from deposits d
         join ledger_transactions t on t.deposit_id = d.id and t.kind = 'deposit_fx'
        cross join lateral (values ('operator:usd_treasury', 'DEBIT'),
                                   ('merchant:' || d.merchant_id || ':usd_available', 'CREDIT'))
                           as a(account, direction)
        where d.id like 'dep_bulk_%'
        order by t.id, a.direction;
       update ledger_accounts
          set balance = balance + (select sum(amount_asset) from deposits where id like 'dep_bulk_%')
        where id = 'merchant:${merchantId}:usd_available';
     end $$;`,
  );
  console.log(`seed: postings ${Date.now() - began} ms`);
}

/** Copies of the template created now, after every seeded copy: the file's last rows. */
async function addLateDeposits(databaseUrl: string, templateId: string, count: number) {
  const columns = (
    await sql<{ column_name: string }>(
      databaseUrl,
      "select column_name from information_schema.columns where table_name = 'deposits' and is_generated = 'NEVER' order by ordinal_position",
    )
  ).map((c) => c.column_name);
  const overrides: Record<string, string> = {
    id: `'dep_late_' || g`,
    bank_reference: `'LATE-' || g`,
    created_at: 'clock_timestamp()',
    updated_at: 'clock_timestamp()',
  };
  await sql(
    databaseUrl,
    `do $$ begin
       set local session_replication_role = replica;
       insert into deposits (${columns.map((c) => `"${c}"`).join(', ')})
       select ${columns.map((c) => overrides[c] ?? `t."${c}"`).join(', ')}
         from deposits t, generate_series(1, ${count}) g where t.id = '${templateId}';
     end $$;`,
  );
}
