import { invalidParameter } from './errors';

/**
 * The browser origins a merchant's frontend calls the API from with a client secret
 * (`allowed_origins` in the merchant's settings; docs/api.md "Browsers").
 */

/** At most this many entries: a merchant's sites, not a directory of them. */
export const MAX_ALLOWED_ORIGINS = 20;

/** An entry's longest form: a DNS name's 253 characters, the scheme and a port. */
const MAX_ENTRY_LENGTH = 270;

/**
 * `https://host[:port]` as a browser writes it in `Origin`: a lower-case DNS name (labels of
 * letters, digits and inner hyphens) or an IPv4 address, and a port only when it is not 443.
 * Entries are compared with the header as strings, so anything a browser never sends (a path,
 * a trailing slash, upper case, a wildcard, `:443`) could never match and is refused instead.
 */
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HTTPS_ORIGIN = new RegExp(`^https://(${LABEL}(?:\\.${LABEL})*)(?::([1-9][0-9]{0,4}))?$`);

/** The sandbox's own development origins: `http://localhost` on any port. */
const SANDBOX_LOCALHOST = /^http:\/\/localhost(?::[1-9][0-9]{0,4})?$/;
/** The contract's way of writing "any localhost port", accepted as an entry in the sandbox. */
export const SANDBOX_LOCALHOST_ENTRY = 'http://localhost:*';

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

function validPort(text: string | undefined): boolean {
  return text === undefined || Number(text) <= 65535;
}

/** Why `entry` is not an origin the list can hold, or null when it is one. */
function problemOf(entry: string, sandbox: boolean): string | null {
  if (sandbox && (entry === SANDBOX_LOCALHOST_ENTRY || SANDBOX_LOCALHOST.test(entry))) {
    return validPort(/:(\d+)$/.exec(entry)?.[1]) ? null : 'has an invalid port';
  }
  const match = HTTPS_ORIGIN.exec(entry);
  if (!match) {
    return sandbox
      ? 'must be https://host[:port] (lower-case host, no path, no trailing slash, no wildcard) or http://localhost[:port]'
      : 'must be https://host[:port] (lower-case host, no path, no trailing slash, no wildcard)';
  }
  const [, host, port] = match;
  if (host.length > 253) return 'has a host name longer than 253 characters';
  if (IPV4.test(host) && host.split('.').some((part) => Number(part) > 255 || /^0\d/.test(part))) {
    return 'has an invalid IPv4 address';
  }
  if (port === '443') return 'names the default port 443, which browsers leave out of Origin';
  if (!validPort(port)) return 'has an invalid port';
  return null;
}

/**
 * Checks `allowed_origins` as PATCH takes it: a list (empty clears it) of at most 20 entries,
 * each `https://host[:port]` exactly (in the sandbox `http://localhost[:port]` too, though the
 * sandbox allows every localhost port anyway). Returns the entries with duplicates dropped,
 * in the order given.
 */
export function parseAllowedOrigins(value: unknown, sandbox: boolean): string[] {
  if (!Array.isArray(value)) {
    throw invalidParameter('allowed_origins', 'must be a list of origins (send [] for none)');
  }
  if (value.length > MAX_ALLOWED_ORIGINS) {
    throw invalidParameter('allowed_origins', `at most ${MAX_ALLOWED_ORIGINS} entries`);
  }
  const origins: string[] = [];
  value.forEach((entry: unknown, index) => {
    if (typeof entry !== 'string' || entry.length > MAX_ENTRY_LENGTH) {
      throw invalidParameter(`allowed_origins[${index}]`, 'must be an origin string');
    }
    const problem = problemOf(entry, sandbox);
    if (problem) throw invalidParameter(`allowed_origins[${index}]`, `${entry} ${problem}`);
    if (!origins.includes(entry)) origins.push(entry);
  });
  return origins;
}

/**
 * Whether a browser page at `origin` (its `Origin` header) may use a client secret of a
 * merchant whose list is `allowed`: an exact entry, or in the sandbox any `http://localhost`
 * port (docs/api.md: "sandbox: also http://localhost:*").
 */
export function originAllowed(
  origin: string,
  allowed: readonly string[],
  sandbox: boolean,
): boolean {
  if (allowed.includes(origin)) return true;
  return sandbox && SANDBOX_LOCALHOST.test(origin) && validPort(/:(\d+)$/.exec(origin)?.[1]);
}
