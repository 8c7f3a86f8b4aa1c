import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Config } from '../config';
import { DATA_DIR } from '../embedded/paths';
import { parseKey, SecretBox } from './secret-box';

/**
 * The key sandbox processes use when no `ENCRYPTION_KEY` is set (other than through `npm start`,
 * which generates one). Derived from a public phrase: it protects nothing, it only keeps one code
 * path for sealed values. Production refuses to start without a key of its own.
 */
export const DEVELOPMENT_ENCRYPTION_KEY = createHash('sha256')
  .update('ngn-onramp SANDBOX DEVELOPMENT KEY: public, protects nothing')
  .digest('hex');

/** Where `npm start` keeps the sandbox key it generated (and the `onramp` command line finds it). */
export const ENCRYPTION_KEY_FILE = join(DATA_DIR, 'encryption-key');

export interface Encryption {
  box: SecretBox;
  /** True when sealing with the public development key (the processes warn at start). */
  developmentKey: boolean;
}

export function encryptionFromConfig(config: Config): Encryption {
  const previous = (config.ENCRYPTION_KEY_PREVIOUS ?? '')
    .split(',')
    .filter((part) => part.trim() !== '')
    .map((part) => parseKey(part)!);
  if (config.ENCRYPTION_KEY) {
    return {
      box: new SecretBox(parseKey(config.ENCRYPTION_KEY)!, previous),
      developmentKey: false,
    };
  }
  // loadConfig refuses production without a key; this guards configs built by hand.
  if (config.ONRAMP_ENV === 'production')
    throw new Error('ENCRYPTION_KEY is required in production');
  return {
    box: new SecretBox(parseKey(DEVELOPMENT_ENCRYPTION_KEY)!, previous),
    developmentKey: true,
  };
}

/** The key `npm start` generated earlier, or a new one written (owner-only) for the next starts. */
export function ensureSandboxKeyFile(file = ENCRYPTION_KEY_FILE): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dirname(file), { recursive: true });
  const key = randomBytes(32).toString('base64');
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}

/**
 * The environment with `ENCRYPTION_KEY` filled from `npm start`'s key file when unset in a
 * sandbox: the command line must open what the sandbox processes sealed.
 */
export function withSandboxKeyFile(
  env: NodeJS.ProcessEnv,
  file = ENCRYPTION_KEY_FILE,
): NodeJS.ProcessEnv {
  if (env.ENCRYPTION_KEY || env.ONRAMP_ENV === 'production' || !existsSync(file)) return env;
  return { ...env, ENCRYPTION_KEY: readFileSync(file, 'utf8').trim() };
}
