import { createHmac, randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createTestDatabase } from '../support/db';
import {
  baseEnv,
  createMerchant,
  eventually,
  startGateway,
  startStack,
  type Stack,
} from '../support/stack';
import { request } from '../support/http';
import { balanceOnramp, freshRate } from '../support/onramps';

const SECRET = `bank_${randomBytes(16).toString('hex')}`;
const PATH = '/v1/bank/notifications';

/** The documented signature (docs/bank-notifications.md), written independently of src/. */
function signedHeaders(body: string, secret = SECRET, timestamp = Math.floor(Date.now() / 1000)) {
  const hex = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return { 'x-bank-timestamp': String(timestamp), 'x-bank-signature': `v1=${hex}` };
}

function transferBody(accountNumber: string, reference: string, amount = '5000.00') {
  return JSON.stringify({
    event: 'transfer.received',
    data: {
      account_number: accountNumber,
      amount,
      currency: 'NGN',
      reference,
      sender_name: 'Ada Obi',
      sender_account_number: '9876543210',
      sender_bank: 'GTBank',
      transferred_at: new Date().toISOString(),
    },
  });
}

const reference = () => `BNK${randomBytes(8).toString('hex').toUpperCase()}`;

describe('bank notifications end to end', () => {
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  let accountNumber: string;
  let db: Client;

  const notify = (body: string, headers: Record<string, string> = signedHeaders(body)) =>
    request(stack.url, 'POST', PATH, { rawBody: body, headers });
  const query = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []) =>
    (await db.query(sql, params)).rows as T[];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    // A low per-key limit: the 100 notifications below prove the endpoint is not counted.
    stack = await startStack(databaseUrl, {
      env: { BANK_WEBHOOK_SECRET: SECRET, RATE_LIMIT_PER_MINUTE: '50' },
    });
    ({ api_key: key } = await createMerchant(databaseUrl, 'Acme Stores'));
    const rate = await freshRate(stack.url, key);
    const onramp = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      body: balanceOnramp(rate.rate_id, 'EPHEMERAL'),
    });
    expect(onramp.status).toBe(201);
    accountNumber = onramp.body.virtual_account.account_number;
    db = new Client({ connectionString: databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  it('records 100 concurrent copies of one notification as one deposit and one event', async () => {
    const ref = reference();
    const body = transferBody(accountNumber, ref);
    const headers = signedHeaders(body);
    const responses = await Promise.all(Array.from({ length: 100 }, () => notify(body, headers)));
    const statuses = responses.map((r) => r.status);
    expect(new Set(statuses)).toEqual(new Set([200]));
    const ids = new Set(responses.map((r) => r.body.deposit_id));
    expect(ids.size).toBe(1);
    const [depositId] = [...ids];
    expect(depositId).toMatch(/^dep_/);
    for (const r of responses) {
      expect(r.body).toMatchObject({ received: true, deposit_id: depositId });
      expect(['PENDING_FX', 'SETTLED']).toContain(r.body.status);
      expect(r.headers.get('ratelimit-limit')).toBeNull();
    }

    const deposits = await query(
      'select id, amount_ngn, sender_name from deposits where bank_reference = $1',
      [ref],
    );
    expect(deposits).toEqual([{ id: depositId, amount_ngn: '5000.00', sender_name: 'Ada Obi' }]);
    const created = await query(
      "select count(*)::int as n from events where deposit_id = $1 and kind = 'deposit.created'",
      [depositId],
    );
    expect(created[0].n).toBe(1);

    // A later retry by the bank answers the same deposit again.
    const again = await notify(body);
    expect(again.status).toBe(200);
    expect(again.body.deposit_id).toBe(depositId);
  });

  it('records equal amounts with different references as two deposits', async () => {
    const [a, b] = [reference(), reference()];
    const first = await notify(transferBody(accountNumber, a, '2500.00'));
    const second = await notify(transferBody(accountNumber, b, '2500.00'));
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(first.body.deposit_id).not.toBe(second.body.deposit_id);
    const rows = await query('select id from deposits where bank_reference = any($1)', [[a, b]]);
    expect(rows).toHaveLength(2);
  });

  it('refuses a bad signature with 401 and records nothing', async () => {
    const ref = reference();
    const body = transferBody(accountNumber, ref);
    const attempts = [
      signedHeaders(body, 'not-the-bank-secret-0123456789'),
      signedHeaders(body, SECRET, Math.floor(Date.now() / 1000) - 3600),
      {},
    ];
    for (const headers of attempts) {
      const response = await notify(body, headers);
      expect(response.status).toBe(401);
      expect(response.body).toEqual({
        error: { code: 'unauthorized', message: expect.any(String) },
      });
      expect(response.headers.get('x-request-id')).toBeTruthy();
    }
    // Signed for one body, sent with another.
    const tampered = await notify(transferBody(accountNumber, ref, '9000.00'), signedHeaders(body));
    expect(tampered.status).toBe(401);
    expect(await query('select 1 from deposits where bank_reference = $1', [ref])).toHaveLength(0);
    expect(
      await query('select 1 from unmatched_transfers where bank_reference = $1', [ref]),
    ).toHaveLength(0);
  });

  it('answers malformed, oversized and non-JSON notifications with the error shape', async () => {
    const usd = transferBody(accountNumber, reference()).replace('"NGN"', '"USD"');
    const badCurrency = await notify(usd);
    expect(badCurrency.status).toBe(400);
    expect(badCurrency.body.error.code).toBe('invalid_parameter');

    const unknownEvent = JSON.stringify({ event: 'transfer.pending', data: {} });
    expect((await notify(unknownEvent)).body.error.code).toBe('invalid_parameter');

    const noReference = JSON.stringify({
      event: 'transfer.received',
      data: { account_number: accountNumber, amount: '100.00', currency: 'NGN' },
    });
    const missing = await notify(noReference);
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('missing_parameter');

    // A return's outcome: the reason is required on a failure, the reference on both.
    const noReason = JSON.stringify({ event: 'transfer.return_failed', data: { reference: 'r' } });
    expect((await notify(noReason)).body.error).toMatchObject({
      code: 'missing_parameter',
      message: expect.stringContaining('data.reason'),
    });
    const badRef = JSON.stringify({ event: 'transfer.return_completed', data: { reference: 5 } });
    expect((await notify(badRef)).body.error.code).toBe('invalid_parameter');

    const huge = JSON.stringify({ event: 'transfer.received', data: { pad: 'x'.repeat(70_000) } });
    const tooLarge = await notify(huge);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error.code).toBe('payload_too_large');

    const body = transferBody(accountNumber, reference());
    const text = await request(stack.url, 'POST', PATH, {
      rawBody: body,
      headers: { ...signedHeaders(body), 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(400);
    expect(text.body.error.code).toBe('invalid_parameter');
  });

  it('refuses account numbers that are not 10 digits (400, the error shape), records nothing', async () => {
    const data = (over: Record<string, unknown>) =>
      JSON.stringify({
        ...JSON.parse(transferBody(accountNumber, reference())),
        data: {
          ...JSON.parse(transferBody(accountNumber, reference())).data,
          ...over,
        },
      });
    for (const bad of ['012345678', '01234567890', '01234S6789', '=1+2345678']) {
      for (const field of ['account_number', 'sender_account_number']) {
        const body = data({ [field]: bad });
        const answer = await notify(body);
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({
          error: {
            code: 'invalid_parameter',
            message: expect.stringContaining(`data.${field}`),
          },
        });
        const ref = JSON.parse(body).data.reference as string;
        expect(await query('select 1 from deposits where bank_reference = $1', [ref])).toEqual([]);
        expect(
          await query('select 1 from unmatched_transfers where bank_reference = $1', [ref]),
        ).toEqual([]);
      }
    }
    // Ten digits, and a payer the bank does not know: accepted.
    const unknownPayer = data({ account_number: '0000000019', sender_account_number: null });
    expect((await notify(unknownPayer)).body).toEqual({ received: true, unmatched: true });
  });

  it('keeps a transfer to an unknown account number as unmatched', async () => {
    const ref = reference();
    const response = await notify(transferBody('0000000019', ref, '1234.56'));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ received: true, unmatched: true });
    const rows = await query(
      'select account_number, amount_ngn from unmatched_transfers where bank_reference = $1',
      [ref],
    );
    expect(rows).toEqual([{ account_number: '0000000019', amount_ngn: '1234.56' }]);
    const again = await notify(transferBody('0000000019', ref, '1234.56'));
    expect(again.body).toEqual({ received: true, unmatched: true });
  });

  it('applies a reversal to the deposit, once', async () => {
    const ref = reference();
    const received = await notify(transferBody(accountNumber, ref, '3000.00'));
    expect(received.status).toBe(200);
    const depositId = received.body.deposit_id;
    const reversal = JSON.stringify({
      event: 'transfer.reversed',
      data: { reference: ref, reversed_at: new Date().toISOString() },
    });
    const response = await notify(reversal);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ received: true, deposit_id: depositId });
    const [row] = await query<{ status: string; failure_reason: string | null }>(
      'select status, failure_reason from deposits where id = $1',
      [depositId],
    );
    // The job runner may have settled it before the reversal arrived: either pair of API.md.
    expect([
      { status: 'FAILED', failure_reason: 'Bank reversed the transfer' },
      { status: 'REVERSED', failure_reason: null },
    ]).toContainEqual(row);
    expect(response.body.status).toBe(row.status);

    const repeated = await notify(reversal);
    expect(repeated.status).toBe(200);
    expect(repeated.body).toEqual({ received: true, deposit_id: depositId, status: row.status });

    const unknown = await notify(
      JSON.stringify({ event: 'transfer.reversed', data: { reference: reference() } }),
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });

  it('documents the endpoint in the OpenAPI document as public', async () => {
    const openapi = await request(stack.url, 'GET', '/v1/openapi.json');
    const operation = openapi.body.paths[PATH].post;
    expect(operation.summary).toEqual(expect.any(String));
    expect(operation.security).toEqual([]);
    const events = operation.requestBody.content['application/json'].schema.anyOf.map(
      (shape: { properties: { event: { const?: string; enum?: string[] } } }) =>
        shape.properties.event.const ?? shape.properties.event.enum?.[0],
    );
    expect(events).toEqual([
      'transfer.received',
      'transfer.reversed',
      'transfer.return_completed',
      'transfer.return_failed',
    ]);
  });

  it('is not served when BANK_WEBHOOK_SECRET is unset', async () => {
    const gateway = await startGateway(baseEnv(databaseUrl));
    try {
      const body = transferBody(accountNumber, reference());
      const response = await request(gateway.url, 'POST', PATH, {
        rawBody: body,
        headers: signedHeaders(body),
      });
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('not_found');
    } finally {
      await gateway.stop();
    }
  });

  it('leaves the settlement of matched deposits to the job runner', async () => {
    const ref = reference();
    const response = await notify(transferBody(accountNumber, ref, '2000.00'));
    await eventually(async () => {
      const [row] = await query<{ status: string }>('select status from deposits where id = $1', [
        response.body.deposit_id,
      ]);
      return row.status === 'SETTLED' ? true : undefined;
    });
  });
});
