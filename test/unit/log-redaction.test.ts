import type { DestinationStream } from 'pino';
import { createLogger } from '../../src/logger';
import {
  isSecretKey,
  maskString,
  redactLogLine,
  REDACTED,
  REDACTED_EMAIL,
} from '../../src/logging/redact';

// Log entries are whatever pino wrote; tests assert on their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Entry = Record<string, any>;

const SECRET_KEY = `sk_live_${'Zx9q'.repeat(10)}`;
const TEST_KEY = `sk_test_${'Ab3d'.repeat(10)}`;
const CLIENT_SECRET = `oc_${'Qw8e'.repeat(10)}`;
const WEBHOOK_SECRET = `whsec_${'MfL+/='.repeat(5)}`;
const OPERATOR_TOKEN = `op_${'Rt7y'.repeat(10)}`;
const EMAIL = 'ada.lovelace+onramp@example.com';
const PRIVATE_KEY = `0x${'59c6995e'.repeat(8)}`;
const TX_HASH = `0x${'ab12cd34'.repeat(8)}`;
const SECRETS = [SECRET_KEY, TEST_KEY, CLIENT_SECRET, WEBHOOK_SECRET, OPERATOR_TOKEN, EMAIL];

function memoryLogger(level = 'debug') {
  const lines: string[] = [];
  const destination: DestinationStream = { write: (line: string) => void lines.push(line) };
  const log = createLogger('test', level, destination);
  const entries = () => lines.map((line) => JSON.parse(line) as Entry);
  return { log, lines, entries };
}

function expectNoSecrets(text: string, extra: string[] = []) {
  for (const secret of [...SECRETS, ...extra]) expect(text).not.toContain(secret);
  // The secret part of a key, even without its prefix.
  expect(text).not.toContain('Zx9q'.repeat(4));
}

describe('isSecretKey (rule 1: names)', () => {
  it.each([
    'authorization',
    'Authorization',
    'proxy-authorization',
    'cookie',
    'Set-Cookie',
    'set_cookie',
    'password',
    'dbPassword',
    'PGPASSWORD',
    'secret',
    'clientSecret',
    'client_secret',
    'previous_secret',
    'BANK_WEBHOOK_SECRET',
    'api_key',
    'apiKey',
    'x-api-key',
    'private_key',
    'privateKey',
    'HOT_WALLET_PRIVATE_KEY',
    'secret_key',
    'token',
    'csrfToken',
    'x-csrf-token',
    'operatorToken',
    'operator_token',
    'email',
    'user_email',
    'userEmail',
    'e-mail',
    'emails',
  ])('%s holds a secret or an e-mail', (name) => {
    expect(isSecretKey(name)).toBe(true);
  });

  it.each([
    'keyId',
    'key_id',
    'apiKeyId',
    'key',
    'idempotencyKey',
    'keyHash',
    'tokens',
    'tokenCount',
    'secretRotationSeconds',
    'WEBHOOK_SECRET_ROTATION_SECONDS',
    'emailVerified',
    'txHash',
    'reqId',
    'asset',
    'msg',
  ])('%s does not', (name) => {
    expect(isSecretKey(name)).toBe(false);
  });
});

describe('maskString (rule 2: values inside strings)', () => {
  it('keeps the prefix of secret keys, client secrets, webhook secrets and operator tokens', () => {
    expect(maskString(`key ${SECRET_KEY} refused`)).toBe(`key sk_live_${REDACTED} refused`);
    expect(maskString(TEST_KEY)).toBe(`sk_test_${REDACTED}`);
    expect(maskString(`(${CLIENT_SECRET})`)).toBe(`(oc_${REDACTED})`);
    expect(maskString(WEBHOOK_SECRET)).toBe(`whsec_${REDACTED}`);
    expect(maskString(`token=${OPERATOR_TOKEN}`)).toBe(`token=${REDACTED}`);
    expect(maskString(`got ${OPERATOR_TOKEN}.`)).toBe(`got op_${REDACTED}.`);
  });

  it('leaves short or glued look-alikes and ids alone', () => {
    expect(maskString('sk_test_short')).toBe('sk_test_short');
    expect(maskString('stop_abcdefghijklmnopqrstuv')).toBe('stop_abcdefghijklmnopqrstuv');
    expect(maskString('onr_01JABCDEFGHJKMNPQRSTVWXYZ0')).toBe('onr_01JABCDEFGHJKMNPQRSTVWXYZ0');
  });

  it('masks Bearer credentials, URL passwords and e-mail addresses', () => {
    expect(maskString('Bearer abc.def')).toBe(`Bearer ${REDACTED}`);
    expect(maskString('sent bearer  xyz today')).toBe(`sent bearer ${REDACTED} today`);
    expect(maskString('postgres://app:hunter2@db.internal:5432/onramp')).toBe(
      `postgres://app:${REDACTED}@db.internal:5432/onramp`,
    );
    expect(maskString(`user ${EMAIL} blocked`)).toBe(`user ${REDACTED_EMAIL} blocked`);
    expect(maskString('a@b.co,c.d@e-f.example.ng')).toBe(`${REDACTED_EMAIL},${REDACTED_EMAIL}`);
  });

  it('masks name=value pairs quoted inside a string, whatever the value', () => {
    expect(maskString(`HOT_WALLET_PRIVATE_KEY=${PRIVATE_KEY}`)).toBe(
      `HOT_WALLET_PRIVATE_KEY=${REDACTED}`,
    );
    expect(maskString(`bad body {"password":"correct horse","amount":"5"}`)).toBe(
      `bad body {"password":"${REDACTED}","amount":"5"}`,
    );
    expect(maskString(`{ privateKey: '${PRIVATE_KEY}', chain: 'BASE' }`)).toBe(
      `{ privateKey: '${REDACTED}', chain: 'BASE' }`,
    );
    expect(maskString('Authorization: Basic dXNlcjpwYXNz')).toBe(`Authorization: ${REDACTED}`);
    expect(maskString(`authorization: Bearer ${TEST_KEY}`)).toBe(`authorization: ${REDACTED}`);
    expect(maskString('tokens: 5, secretRotationSeconds: 86400, keyId=key_1')).toBe(
      'tokens: 5, secretRotationSeconds: 86400, keyId=key_1',
    );
  });

  it('keeps transaction hashes: 0x + 64 hex is masked by name only, never by shape', () => {
    const text = `payout broadcast ${TX_HASH} (nonce 7)`;
    expect(maskString(text)).toBe(text);
  });

  it('is idempotent', () => {
    const once = maskString(`Bearer ${SECRET_KEY} ${EMAIL} token=abc`);
    expect(maskString(once)).toBe(once);
  });
});

describe('redactLogLine (both rules on a JSON line)', () => {
  it('returns the very same line when nothing could match', () => {
    const line = '{"level":30,"reqId":"req_1","msg":"request completed","responseTime":1.5}\n';
    expect(redactLogLine(line)).toBe(line);
  });

  it('redacts secret keys at any depth, in arrays, and masks strings, keeping the rest byte for byte', () => {
    const line =
      '{"level":50,"n":123456789012345678901234567890,"a":{"b":[{"c":{"Authorization":{"x":[1,2]},"keyId":"key_1"}}]},' +
      `"emails":["${EMAIL}"],"token":null,"msg":"for ${EMAIL}"}\n`;
    expect(redactLogLine(line)).toBe(
      '{"level":50,"n":123456789012345678901234567890,"a":{"b":[{"c":{"Authorization":"[redacted]","keyId":"key_1"}}]},' +
        `"emails":"[redacted]","token":null,"msg":"for ${REDACTED_EMAIL}"}\n`,
    );
  });

  it('decodes escapes before masking and re-encodes what changed', () => {
    const line = JSON.stringify({ msg: `line1\n"Bearer ${TEST_KEY}"\tand ${EMAIL}` });
    const out = redactLogLine(line);
    expect(JSON.parse(out)).toEqual({ msg: `line1\n"Bearer ${REDACTED}"\tand ${REDACTED_EMAIL}` });
  });

  it('masks e-mail addresses used as keys', () => {
    expect(JSON.parse(redactLogLine(JSON.stringify({ [EMAIL]: 3 })))).toEqual({
      [REDACTED_EMAIL]: 3,
    });
  });

  it('masks a line that is not JSON as one string', () => {
    expect(redactLogLine(`plain ${SECRET_KEY} text}`)).toBe(`plain sk_live_${REDACTED} text}`);
  });
});

describe('createLogger (a real pino logger writing to a stream)', () => {
  it('writes one JSON object a line with name, level and msg', () => {
    const { log, lines, entries } = memoryLogger();
    log.info({ event: 'listening' }, 'gateway up');
    expect(lines).toHaveLength(1);
    expect(lines[0].endsWith('\n')).toBe(true);
    expect(entries()[0]).toMatchObject({
      name: 'test',
      level: 30,
      event: 'listening',
      msg: 'gateway up',
    });
  });

  it('redacts secret and personal keys nested three and more levels down, in objects and arrays', () => {
    const { log, lines, entries } = memoryLogger();
    log.info(
      {
        body: { input: { userEmail: EMAIL, amount: '100.00' } },
        err: {
          config: { headers: { authorization: `Bearer ${SECRET_KEY}`, 'x-csrf-token': 'csrf' } },
        },
        deep: { a: { b: { c: { d: { HOT_WALLET_PRIVATE_KEY: PRIVATE_KEY, keyId: 'key_01J' } } } } },
        list: [{ user_email: EMAIL }, [{ clientSecret: CLIENT_SECRET }], `to ${EMAIL}`],
        headers: {
          'set-cookie': ['onramp_session=abc; HttpOnly'],
          'content-type': 'application/json',
        },
        counts: { tokens: 2, secretRotationSeconds: 86_400 },
        payout: { txHash: TX_HASH, nonce: 7 },
      },
      'nested',
    );
    const text = lines.join('');
    expectNoSecrets(text, [PRIVATE_KEY, 'onramp_session=abc', '"csrf"']);
    const entry = entries()[0];
    expect(entry.body.input).toEqual({ userEmail: REDACTED, amount: '100.00' });
    expect(entry.err.config.headers).toEqual({ authorization: REDACTED, 'x-csrf-token': REDACTED });
    expect(entry.deep.a.b.c.d).toEqual({ HOT_WALLET_PRIVATE_KEY: REDACTED, keyId: 'key_01J' });
    expect(entry.list).toEqual([
      { user_email: REDACTED },
      [{ clientSecret: REDACTED }],
      `to ${REDACTED_EMAIL}`,
    ]);
    expect(entry.headers).toEqual({ 'set-cookie': REDACTED, 'content-type': 'application/json' });
    expect(entry.counts).toEqual({ tokens: 2, secretRotationSeconds: 86_400 });
    expect(entry.payout).toEqual({ txHash: TX_HASH, nonce: 7 });
  });

  it('masks the message, and an Error logged as log.error(err) and as { err }, with its own props and cause chain', () => {
    const { log, lines, entries } = memoryLogger();
    const cause = new Error(`upstream refused ${TEST_KEY}`);
    const error = new Error(`key ${SECRET_KEY} of ${EMAIL} rejected`, { cause });
    Object.assign(error, {
      config: { headers: { Authorization: `Bearer ${SECRET_KEY}` } },
      response: { data: { error: { user: { email: EMAIL } } } },
      txHash: TX_HASH,
    });
    log.error(error);
    log.error({ err: error }, `retrying for ${EMAIL} with Bearer ${OPERATOR_TOKEN}`);
    log.warn({ err: cause }); // message taken from err.message by pino
    expectNoSecrets(lines.join(''));
    const [plain, wrapped, fromCause] = entries();
    expect(plain.msg).toBe(`key sk_live_${REDACTED} of ${REDACTED_EMAIL} rejected`);
    expect(plain.err.message).toContain(`key sk_live_${REDACTED} of ${REDACTED_EMAIL} rejected`);
    expect(plain.err.message).toContain(`upstream refused sk_test_${REDACTED}`);
    expect(plain.err.stack).toContain(`Error: key sk_live_${REDACTED} of ${REDACTED_EMAIL}`);
    expect(plain.err.stack).toContain(`caused by: Error: upstream refused sk_test_${REDACTED}`);
    expect(plain.err.config.headers.Authorization).toBe(REDACTED);
    expect(plain.err.response.data.error.user.email).toBe(REDACTED);
    expect(plain.err.txHash).toBe(TX_HASH);
    expect(wrapped.msg).toBe(`retrying for ${REDACTED_EMAIL} with Bearer ${REDACTED}`);
    expect(wrapped.err.config.headers.Authorization).toBe(REDACTED);
    expect(fromCause.msg).toBe(`upstream refused sk_test_${REDACTED}`);
  });

  it('covers printf-style arguments and child bindings', () => {
    const { log, lines, entries } = memoryLogger();
    const child = log.child({ operatorToken: OPERATOR_TOKEN, merchant: 'mer_1' });
    child.info('signed in %s with %s', EMAIL, `Bearer ${TEST_KEY}`);
    expectNoSecrets(lines.join(''));
    expect(entries()[0]).toMatchObject({
      operatorToken: REDACTED,
      merchant: 'mer_1',
      msg: `signed in ${REDACTED_EMAIL} with Bearer ${REDACTED}`,
    });
  });

  it("never changes the caller's objects", () => {
    const { log } = memoryLogger();
    const error = new Error(`key ${SECRET_KEY} refused`);
    Object.assign(error, { headers: { authorization: `Bearer ${SECRET_KEY}` } });
    const payload = {
      user: { email: EMAIL, profile: { secrets: [CLIENT_SECRET] } },
      note: `for ${EMAIL}`,
      err: error,
    };
    const before = JSON.stringify({ ...payload, err: { ...error, message: error.message } });
    log.info(payload, 'with a payload');
    log.error(error);
    expect(JSON.stringify({ ...payload, err: { ...error, message: error.message } })).toBe(before);
    expect(payload.user.email).toBe(EMAIL);
    expect(error.message).toBe(`key ${SECRET_KEY} refused`);
    expect((error as Error & { headers: { authorization: string } }).headers.authorization).toBe(
      `Bearer ${SECRET_KEY}`,
    );
  });

  it('respects the level', () => {
    const { log, lines } = memoryLogger('warn');
    log.info({ email: EMAIL }, 'hidden');
    log.warn('shown');
    expect(lines).toHaveLength(1);
  });
});

describe('payer resolution links (their token is the payer’s credential)', () => {
  const LINK_ID = 'rsl_01JDQX7A8B9C0D1E2F3G4H5J6K';
  const SIGNATURE = '3q2-7wAbCdEfGhIjKlMnOpQrStUvWxYz0123456789_';
  const TOKEN = `${LINK_ID}.1764151200.${SIGNATURE}`;

  it('masks the path after /pay/resolve/ and a token anywhere, keeping the link id', () => {
    expect(maskString(`/pay/resolve/${TOKEN}`)).toBe(`/pay/resolve/${REDACTED}`);
    expect(maskString(`/pay/resolve/${TOKEN}?utm=1`)).toBe(`/pay/resolve/${REDACTED}?utm=1`);
    expect(maskString(`/PAY/Resolve/${TOKEN}/x`)).toBe(`/PAY/Resolve/${REDACTED}`);
    expect(maskString(`link https://pay.example.com/pay/resolve/${TOKEN} sent`)).toBe(
      `link https://pay.example.com/pay/resolve/${REDACTED} sent`,
    );
    expect(maskString(`token ${TOKEN.replace(/\./g, '%2E')} seen`)).toBe(
      `token ${LINK_ID}.${REDACTED} seen`,
    );
    expect(maskString(`chose through ${TOKEN}`)).toBe(`chose through ${LINK_ID}.${REDACTED}`);
    // The link id alone is no credential: kept.
    expect(maskString(`actor payer:link:${LINK_ID}`)).toBe(`actor payer:link:${LINK_ID}`);
  });

  it('a request line of the page or the choice never holds the token (request serializer)', () => {
    const { log, lines, entries } = memoryLogger();
    for (const url of [`/pay/resolve/${TOKEN}`, `/pay/resolve/${TOKEN}?choice=x`]) {
      log.info(
        { req: { method: 'POST', url, ip: '203.0.113.7', headers: {}, host: 'h' } },
        'request completed',
      );
    }
    expect(lines.join('')).not.toContain(SIGNATURE);
    expect(entries()[0].req).toMatchObject({
      method: 'POST',
      url: `/pay/resolve/${REDACTED}`,
      remoteAddress: '203.0.113.7',
    });
  });
});
