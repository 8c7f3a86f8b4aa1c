// Seeded fuzzing of the payer's page (/pay/resolve/{token}): random and mutated tokens,
// methods, content types and bodies. No answer may be a 5xx, and only the real token may show
// anything of its deposit. Replay a failure with the FUZZ_SEED (and FUZZ_PATH) fast-check prints.
import fc from 'fast-check';
import { createTestDatabase } from '../support/db';
import { request } from '../support/http';
import { balanceOnramp, createOnramp, freshRate, sandboxTransfer } from '../support/onramps';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';
import { batchOf, FUZZ_SEED, runParameters } from './support/driver';

jest.setTimeout(300_000);

const METHODS = ['GET', 'POST', 'POST', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const CONTENT_TYPES = [
  undefined,
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
  'application/json',
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded, text/html',
  'garbage/;;=',
];

describe(`payer page fuzz (seed ${FUZZ_SEED})`, () => {
  let stack: Stack;
  let token: string;
  let depositId: string;
  let key: string;
  const merchantName = 'Fuzz Payer Merchant';

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    key = (await createMerchant(databaseUrl, merchantName)).api_key;
    const rate = await freshRate(stack.url, key);
    const onramp = await createOnramp(stack.url, key, balanceOnramp(rate.rate_id, 'THROWAWAY'));
    const account = onramp.virtual_account.account_number;
    const first = await sandboxTransfer(stack.url, key, account, '20000');
    await eventually(async () =>
      (await request(stack.url, 'GET', `/v1/deposits/${first.deposit_id}`, { key })).body.status ===
      'SETTLED'
        ? true
        : undefined,
    );
    depositId = (await sandboxTransfer(stack.url, key, account, '5432.10')).deposit_id;
    const link = await request(stack.url, 'POST', `/v1/deposits/${depositId}/resolution_link`, {
      key,
    });
    token = String(link.body.url).split('/pay/resolve/')[1];
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** Tokens near the real one (one character, the expiry, pieces) and far from it. */
  const tokenArb = () =>
    fc.oneof(
      fc.string({ maxLength: 120 }),
      fc.stringMatching(/^rsl_[0-9A-Z]{26}\.[0-9]{10}\.[A-Za-z0-9_-]{43}$/),
      fc
        .tuple(fc.nat(token.length - 1), fc.constantFrom(...'Aa0_-.%/\\\u0000é'))
        .map(([i, c]) => token.slice(0, i) + c + token.slice(i + 1)),
      fc.nat(token.length).map((n) => token.slice(0, n)),
      fc.string({ maxLength: 40 }).map((tail) => token + tail),
      fc.constantFrom('..', '%2e%2e', '%00', `${token}%2F..`, 'a'.repeat(250)),
    );

  const bodyArb = () =>
    fc.oneof(
      fc.constant(undefined),
      fc.constantFrom('settle', 'return', '', 'SETTLE', 'return ', 'x').map((c) => `choice=${c}`),
      fc.string({ maxLength: 200 }).map((c) => `choice=${encodeURIComponent(c)}`),
      fc.string({ maxLength: 300 }),
      fc.constant(`choice=return&${'x'.repeat(5000)}`),
      fc.constant('{"choice":"return"}'),
      // The account number the payer paid from: never 10 digits here (see below), in every
      // shape a form field can take (repeated, empty, huge, encoded, with the choice or not).
      fc
        .tuple(
          fc.constantFrom('settle', 'return', 'x'),
          fc.oneof(
            fc.stringMatching(/^[0-9]{0,9}$/),
            fc.stringMatching(/^[0-9]{11,16}$/),
            fc.string({ maxLength: 60 }),
            fc.constantFrom('', ' ', '%00', '١٢٣٤٥٦٧٨٩٠', '0x12345678', '1e9', '-123456789'),
          ),
        )
        .map(([c, n]) => `choice=${c}&account_number=${encodeURIComponent(n)}`),
      fc.constant('choice=return&account_number=1&account_number=2'),
      fc.constant(`choice=settle&account_number=${'9'.repeat(2000)}`),
    );

  /** What the real token may be sent with: a body that can never choose (no 10 digits). */
  const cannotChoose = (body: string | undefined) => {
    if (body === undefined) return true;
    const values = new URLSearchParams(body).getAll('account_number');
    return values.every((v) => !/^[0-9]{10}$/.test(v.replace(/[\s-]/g, '')));
  };

  it('no 5xx, and no deposit data without the real token', async () => {
    // Built here: the real token exists only once the world is set up.
    const requestArb = fc.record({
      method: fc.constantFrom(...METHODS),
      token: tokenArb(),
      contentType: fc.constantFrom(...CONTENT_TYPES),
      body: bodyArb(),
    });
    const seen = new Map<string, number>();
    const violations: string[] = [];
    await fc.assert(
      fc.asyncProperty(batchOf(requestArb, 8), async (batch) => {
        await Promise.all(
          batch.map(async (sent) => {
            // The real token only with bodies that cannot choose: a right account number would
            // resolve the deposit, and wrong well-formed ones lock it (tested elsewhere).
            if (sent.token === token && sent.method === 'POST' && !cannotChoose(sent.body)) return;
            const path = `/pay/resolve/${encodeURIComponent(sent.token).replace(/%25/g, '%')}`;
            const headers: Record<string, string> = {};
            if (sent.contentType) headers['content-type'] = sent.contentType;
            const hasBody = sent.body !== undefined && !['GET', 'HEAD'].includes(sent.method);
            let answer: Response;
            try {
              answer = await fetch(`${stack.url}${path}`, {
                method: sent.method,
                headers,
                body: hasBody ? sent.body : undefined,
                redirect: 'manual',
              });
            } catch (error) {
              // Refused by fetch itself (a header it will not send): nothing reached the server.
              const refused = (error as Error).name === 'TypeError' && !(error as Error).cause;
              if (refused) return;
              throw error;
            }
            const text = await answer.text();
            seen.set(String(answer.status), (seen.get(String(answer.status)) ?? 0) + 1);
            const what = `${sent.method} ${path} ${sent.contentType} -> ${answer.status}`;
            if (answer.status >= 500) violations.push(`5xx: ${what} ${text.slice(0, 200)}`);
            // No account number of 10 digits, no choice: never the redirect of an applied one.
            if (sent.method === 'POST' && answer.status === 303) violations.push(`chose: ${what}`);
            if (sent.token !== token) {
              for (const secret of [merchantName, '5,432.10', '5432.10', depositId]) {
                if (text.includes(secret)) violations.push(`leak ${secret}: ${what}`);
              }
            }
          }),
        );
        return violations.length === 0;
      }),
      runParameters(400),
    );
    console.log(`payer page fuzz answers by status: ${JSON.stringify(Object.fromEntries(seen))}`);
    expect(violations).toEqual([]);
    // The page still answers the real token, with its deposit untouched.
    const page = await request(stack.url, 'GET', `/pay/resolve/${token}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('5,432.10');
    expect(page.text).toContain('name="account_number"');
    const deposit = await request(stack.url, 'GET', `/v1/deposits/${depositId}`, { key });
    expect(deposit.body.status).toBe('FLAGGED');
  });
});
