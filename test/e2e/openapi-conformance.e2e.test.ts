import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { createTestDatabase } from '../support/db';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';
import { request, type HttpResponse } from '../support/http';
import { balanceOnramp, freshRate, randomAddress } from '../support/onramps';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const document: Json = JSON.parse(
  readFileSync(join(__dirname, '..', '..', 'docs', 'openapi.json'), 'utf8'),
);
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
// The whole document as one schema, so `#/components/schemas/...` references resolve.
ajv.addSchema(document, 'openapi');

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** Headers the gateway sends whatever the request; the others depend on what happened. */
const ALWAYS = ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

/**
 * The real answer of the gateway, checked against docs/openapi.json: its status is documented
 * for the operation, its body is valid against the documented schema, and it carries the
 * documented headers.
 */
function expectConforms(template: string, method: string, response: HttpResponse): void {
  const operation = document.paths[template]?.[method];
  const documented = operation?.responses?.[String(response.status)];
  expect({ template, method, status: response.status, documented: !!documented }).toEqual({
    template,
    method,
    status: response.status,
    documented: true,
  });
  const at = pointer('paths', template, method, 'responses', String(response.status));
  const validate = ajv.getSchema(`openapi#/${at}/content/application~1json/schema`);
  expect(validate).toBeDefined();
  const valid = validate!(response.body);
  expect({ template, status: response.status, errors: valid ? null : validate!.errors }).toEqual({
    template,
    status: response.status,
    errors: null,
  });
  for (const name of Object.keys(documented.headers)) {
    if (ALWAYS.includes(name)) expect([name, response.headers.get(name)]).not.toEqual([name, null]);
  }
}

describe('the gateway answers as docs/openapi.json says', () => {
  let stack: Stack;
  let key: string;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    ({ api_key: key } = await createMerchant(databaseUrl, 'Conformance Co'));
  });
  afterAll(() => stack?.stop());

  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    request(stack.url, method.toUpperCase(), path, { key, body, headers });

  it('from a quote to a withdrawal, every answer matches its documented schema and headers', async () => {
    expectConforms('/health', 'get', await request(stack.url, 'GET', '/health'));
    const rate = await freshRate(stack.url, key);
    expectConforms('/v1/rates', 'get', await call('get', '/v1/rates?from=NGN&to=USDC'));

    const createBody = balanceOnramp(rate.rate_id);
    const idempotency = { 'idempotency-key': `conformance-${Date.now()}` };
    const created = await call('post', '/v1/onramp', createBody, idempotency);
    expectConforms('/v1/onramp', 'post', created);
    const replayed = await call('post', '/v1/onramp', createBody, idempotency);
    expectConforms('/v1/onramp', 'post', replayed);
    expect(replayed.headers.get('Idempotent-Replayed')).toBe('true');
    const onrampId = created.body.onramp_id;
    expectConforms('/v1/onramp/{id}', 'get', await call('get', `/v1/onramp/${onrampId}`));
    expectConforms('/v1/onramps', 'get', await call('get', '/v1/onramps?per_page=5'));

    const account = created.body.virtual_account.account_number;
    const transfer = { account_number: account, amount_ngn: '50000.00' };
    const deposit = await call('post', '/v1/sandbox/deposits', transfer);
    expectConforms('/v1/sandbox/deposits', 'post', deposit);
    const again = { ...transfer, bank_reference: deposit.body.bank_reference };
    expectConforms(
      '/v1/sandbox/deposits',
      'post',
      await call('post', '/v1/sandbox/deposits', again),
    );

    const depositPath = `/v1/deposits/${deposit.body.deposit_id}`;
    const settled = await eventually(async () => {
      const read = await call('get', depositPath);
      return read.body.status === 'SETTLED' ? read : undefined;
    }, 30_000);
    expectConforms('/v1/deposits/{id}', 'get', settled);
    expectConforms('/v1/deposits', 'get', await call('get', `/v1/deposits?onramp_id=${onrampId}`));
    expectConforms('/v1/merchant/balance', 'get', await call('get', '/v1/merchant/balance'));

    const withdrawal = await call('post', '/v1/merchant/withdraw', {
      amount: '5.00',
      asset: 'USDC',
      chain: 'BASE',
      destination_address: randomAddress(),
    });
    expectConforms('/v1/merchant/withdraw', 'post', withdrawal);
    const withdrawalPath = `/v1/merchant/withdrawals/${withdrawal.body.withdrawal_id}`;
    expectConforms('/v1/merchant/withdrawals/{id}', 'get', await call('get', withdrawalPath));
    expectConforms(
      '/v1/merchant/withdrawals',
      'get',
      await call('get', '/v1/merchant/withdrawals'),
    );

    const reversal = { bank_reference: deposit.body.bank_reference };
    expectConforms(
      '/v1/sandbox/reversals',
      'post',
      await call('post', '/v1/sandbox/reversals', reversal),
    );
  });

  it('documents the answers of the onramp lifecycle operations', async () => {
    const permanent = {
      type: 'PERMANENT',
      user: { email: 'ada@example.com' },
      settlement: { mode: 'MERCHANT_BALANCE' },
    };
    const created = await call('post', '/v1/onramp', permanent);
    expectConforms('/v1/onramp', 'post', created);
    const id = created.body.onramp_id;
    const revoke = `/v1/onramp/${id}/revoke_client_secret`;
    expectConforms('/v1/onramp/{id}/revoke_client_secret', 'post', await call('post', revoke));
    const deactivate = `/v1/onramp/${id}/deactivate`;
    expectConforms('/v1/onramp/{id}/deactivate', 'post', await call('post', deactivate));
  });

  it('documents the error answers, in the Error shape', async () => {
    expectConforms('/v1/deposits/{id}', 'get', await call('get', '/v1/deposits/dep_unknown'));
    expectConforms('/v1/deposits', 'get', await call('get', '/v1/deposits?per_page=1000'));
    expectConforms('/v1/rates', 'get', await call('get', '/v1/rates?to=USDC'));
    expectConforms('/v1/onramp', 'post', await call('post', '/v1/onramp', { type: 'NOPE' }));
    const anonymous = await request(stack.url, 'GET', '/v1/merchant/balance');
    expect(anonymous.status).toBe(401);
    expectConforms('/v1/merchant/balance', 'get', anonymous);
    const tooMuch = await call('post', '/v1/merchant/withdraw', {
      amount: '999999.00',
      asset: 'USDC',
      chain: 'BASE',
      destination_address: randomAddress(),
    });
    expect(tooMuch.body.error.code).toBe('insufficient_balance');
    expectConforms('/v1/merchant/withdraw', 'post', tooMuch);
  });
});
