/**
 * Log redaction: secrets and e-mail addresses never reach a log line, at any depth and inside
 * strings. Applied to the finished JSON line (see `src/logger.ts`), so it also covers what the
 * caller's objects become only inside pino: `err` serializer output (own enumerable props,
 * `cause` chains folded into message/stack), the message taken from `log.error(err)`, child
 * bindings and Fastify's request/response serializers.
 *
 * Two rules:
 *
 * 1. Keys. A property whose name is secret-ish or personal has its whole value (string, number,
 *    object, array) replaced by "[redacted]"; `null` is kept (a missing secret is no secret).
 *    The name is lower-cased and stripped of `_` and `-`, then must END with one of
 *    SECRET_KEY_SUFFIXES: `authorization`, `Set-Cookie`, `clientSecret`, `client_secret`,
 *    `HOT_WALLET_PRIVATE_KEY`, `x-csrf-token`, `userEmail`, `user_email` match. Matching the
 *    end (not "contains") keeps values that only DESCRIBE a secret: `keyId`, `key_id`,
 *    `apiKeyId`, `tokens` (counts, token addresses), `secretRotationSeconds`,
 *    `WEBHOOK_SECRET_ROTATION_SECONDS`, `emailVerified`, `keyHash`, `idempotencyKey`. A bare
 *    `key` is not redacted either (idempotency and cache keys); secret keys under it are still
 *    masked by rule 2 when they have a known prefix.
 *
 * 2. Values. Every string (values, keys, `msg`, `err.message`, `err.stack`) is masked, keeping a
 *    prefix so the line stays useful:
 *    - `sk_test_`, `sk_live_`, `oc_`, `whsec_`, `op_` followed by 16+ of [A-Za-z0-9+/=_] ->
 *      `sk_live_[redacted]` (not when glued to a preceding letter or digit: `stop_...`);
 *    - `Bearer <anything>` -> `Bearer [redacted]`;
 *    - credentials in URLs, `postgres://user:pass@host` -> `postgres://user:[redacted]@host`;
 *    - e-mail addresses -> `[redacted email]`;
 *    - `name=value`, `name: value`, `"name":"value"` inside a string (a quoted JSON body, a
 *      util.inspect dump, an env line) where `name` passes rule 1 -> `name=[redacted]`.
 *    - a payer resolution link: whatever follows `/pay/resolve/` (any case) up to a space, quote,
 *      `?` or `#` -> `/pay/resolve/[redacted]`, and a link's token anywhere (`rsl_<id>.<expiry>.
 *      <signature>`, dots possibly percent-encoded) -> `rsl_<id>.[redacted]`: the token is the
 *      payer's credential, the link id alone is not;
 *    0x + 64 hex is NOT a value pattern: it is also the shape of a transaction hash, which logs
 *    must keep. A private key is masked only by its name (rule 1, or the `name=value` form).
 *
 * Neither rule touches the caller's objects: only the serialized line is rewritten.
 *
 * Cost: one regex test per line (about 1 us) when the line holds no secret-ish name and no
 * pattern literal (`sk_`, `oc_`, `op_`, `whsec_`, `bearer`, `@`, `rsl_`, `/pay/resolve/`); otherwise the line is
 * tokenized and its strings masked (tens of us for a line with a stack trace).
 *
 * Known over-masking, accepted: prose "a Bearer token" becomes "a Bearer [redacted]"; an id
 * that ever got the prefix `oc_`/`op_` plus 16+ characters would be masked like a secret.
 */

/** Normalized (lower-case, no `_`/`-`) name endings of secret or personal values. */
export const SECRET_KEY_SUFFIXES: readonly string[] = [
  'authorization',
  'cookie',
  'cookies',
  'password',
  'passwd',
  'passphrase',
  'secret',
  'secrets',
  'apikey',
  'privatekey',
  'secretkey',
  'token',
  'mnemonic',
  'credential',
  'credentials',
  'email',
  'emails',
  // ENCRYPTION_KEY and ENCRYPTION_KEY_PREVIOUS (a bare `key` stays: idempotency and cache keys).
  'encryptionkey',
  'encryptionkeyprevious',
];

export const REDACTED = '[redacted]';
export const REDACTED_EMAIL = '[redacted email]';

/** Rule 1: does a property with this name hold a secret or an e-mail address? */
export function isSecretKey(name: string): boolean {
  const normalized = name.toLowerCase().replace(/[_-]/g, '');
  return SECRET_KEY_SUFFIXES.some((suffix) => normalized.endsWith(suffix));
}

const PREFIXED_SECRET =
  /(?<![A-Za-z0-9])(sk_test_|sk_live_|whsec_|oc_|op_)[A-Za-z0-9+/=_]{16,}[A-Za-z0-9+/=_-]*/g;
const BEARER = /\b(bearer)\s+[^\s"',;]+/gi;
// The lookbehinds make each pattern start only at the beginning of a run of its characters:
// without them a long run that does not match (a base64 blob) is rescanned from every offset.
const URL_CREDENTIALS = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/[^\s:/@"']*:)[^\s/@"']+@/gi;
const EMAIL =
  /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
/**
 * `name` + optional closing quote + `:` or `=` + a quoted or bare value; a bare value may be
 * an auth scheme and its credential (`Authorization: Basic dXNl...`).
 */
const NAMED_VALUE =
  /(?<![A-Za-z0-9_-])([A-Za-z][A-Za-z0-9_-]*)(["']?\s*[:=]\s*)(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|((?:(?:[Bb]earer|[Bb]asic|[Dd]igest)\s+)?(?:[^\s"',;&)}[\]]*\[redacted\]|[^\s"',;&)}\]]+)))/g;

const PAYER_LINK_PATH = /(\/pay\/resolve\/)[^\s"'?#]+/gi;
const RESOLUTION_TOKEN =
  /(?<![A-Za-z0-9])(rsl_[0-9A-Za-z]{26})(?:\.|%2e)[0-9]+(?:\.|%2e)[A-Za-z0-9_-]+/gi;

/** Payer resolution links and tokens masked (rule 2's link part; the request serializer too). */
export function maskPayerLinks(text: string): string {
  if (!/rsl_|\/pay\/resolve\//i.test(text)) return text;
  return text.replace(PAYER_LINK_PATH, `$1${REDACTED}`).replace(RESOLUTION_TOKEN, `$1.${REDACTED}`);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * True for every text holding a name rule 1 matches (a superset): each suffix with optional
 * `_`/`-` between its letters. `u`: Unicode case folding, so it also matches every name that
 * `toLowerCase()` folds onto a suffix.
 */
const SECRET_NAME_HINT = new RegExp(
  SECRET_KEY_SUFFIXES
    // `secret` already finds `secrets` and `secretkey`.
    .filter(
      (suffix) => !SECRET_KEY_SUFFIXES.some((other) => other !== suffix && suffix.includes(other)),
    )
    .map((suffix) => [...suffix].map(escapeRegExp).join('[_-]*'))
    .join('|'),
  'iu',
);

/** Rule 2 on one string; returns the same string when nothing matched. */
export function maskString(text: string): string {
  // Each pattern runs only when its literal part is there: most strings (stacks) skip them all.
  let out = maskPayerLinks(text);
  if (out.includes('_')) out = out.replace(PREFIXED_SECRET, `$1${REDACTED}`);
  out = out.replace(BEARER, `$1 ${REDACTED}`);
  if (out.includes('@')) {
    if (out.includes('://')) out = out.replace(URL_CREDENTIALS, `$1${REDACTED}@`);
    out = out.replace(EMAIL, REDACTED_EMAIL);
  }
  if (SECRET_NAME_HINT.test(out)) {
    out = out.replace(
      NAMED_VALUE,
      (whole, name: string, separator: string, dq?: string, sq?: string, bare?: string) => {
        if (!isSecretKey(name)) return whole;
        if (dq !== undefined) return `${name}${separator}"${REDACTED}"`;
        if (sq !== undefined) return `${name}${separator}'${REDACTED}'`;
        if (bare === 'null' || bare === 'undefined' || bare === REDACTED) return whole;
        return `${name}${separator}${REDACTED}`;
      },
    );
  }
  return out;
}

/**
 * A cheap test that is true for every line rule 1 or 2 could change (a superset): a secret
 * name, or the literal part of a value pattern. Other lines are written untouched.
 */
const MAYBE_SENSITIVE = new RegExp(
  `${SECRET_NAME_HINT.source}|sk_test_|sk_live_|whsec_|oc_|op_|bearer|@|rsl_|/pay/resolve/`,
  'iu',
);

/** JSON tokens: a string, a structural character, a literal (number, true, false, null), space. */
const TOKEN = /"[^"\\]*(?:\\.[^"\\]*)*"|[{}[\]:,]|[^\s"{}[\]:,]+|\s+/y;

const LITERAL = /^(?:-?[0-9][0-9.eE+-]*|true|false|null)$/;

function decode(token: string): string {
  return token.includes('\\') ? (JSON.parse(token) as string) : token.slice(1, -1);
}

function maskToken(token: string): string {
  const text = decode(token);
  const masked = maskString(text);
  return masked === text ? token : JSON.stringify(masked);
}

/** Index just past the container whose opening bracket ends at `from`, or -1. */
function skipContainer(line: string, from: number): number {
  let depth = 1;
  let pos = from;
  while (depth > 0) {
    TOKEN.lastIndex = pos;
    const match = TOKEN.exec(line);
    if (!match) return -1;
    pos = TOKEN.lastIndex;
    const c = match[0][0];
    if (c === '{' || c === '[') depth += 1;
    else if (c === '}' || c === ']') depth -= 1;
  }
  return pos;
}

interface Frame {
  object: boolean;
  /** In an object: the next string is a key. */
  expectKey: boolean;
}

/**
 * Rules 1 and 2 on one serialized JSON log line. Only strings and the values of secret keys
 * change; everything else (key order, spacing, numbers beyond 2^53) is kept byte for byte.
 * Anything that does not tokenize as JSON is masked as a whole string by rule 2.
 */
export function redactLogLine(line: string): string {
  if (!MAYBE_SENSITIVE.test(line)) return line;
  if (!line.trimStart().startsWith('{')) return maskString(line);
  const stack: Frame[] = [];
  let out = '';
  let secretValue = false;
  let pos = 0;
  while (pos < line.length) {
    TOKEN.lastIndex = pos;
    const match = TOKEN.exec(line);
    if (!match) return maskString(line);
    const token = match[0];
    pos = TOKEN.lastIndex;
    const c = token[0];
    const top = stack[stack.length - 1];
    if (c.trim() === '') {
      out += token;
    } else if (c === '}' || c === ']') {
      stack.pop();
      out += token;
    } else if (c === ',') {
      if (top?.object) top.expectKey = true;
      out += token;
    } else if (c === ':') {
      out += token;
    } else if (top?.object && top.expectKey) {
      top.expectKey = false;
      if (c !== '"') return maskString(line);
      secretValue = isSecretKey(decode(token));
      out += maskToken(token);
    } else if (secretValue) {
      secretValue = false;
      if (token === 'null') {
        out += token;
      } else {
        if (c === '{' || c === '[') {
          pos = skipContainer(line, pos);
          if (pos < 0) return maskString(line);
        }
        out += JSON.stringify(REDACTED);
      }
    } else if (c === '{') {
      stack.push({ object: true, expectKey: true });
      out += token;
    } else if (c === '[') {
      stack.push({ object: false, expectKey: false });
      out += token;
    } else if (c === '"') {
      out += maskToken(token);
    } else if (LITERAL.test(token)) {
      out += token;
    } else {
      return maskString(line);
    }
  }
  return out;
}
