import type { Logger } from 'pino';
import { privateKeyToAccount } from 'viem/accounts';
import { isSecretKey } from '../logging/redact';
import type { Encryption } from './encryption-keys';

const HOT_WALLET_KEY = 'HOT_WALLET_PRIVATE_KEY';

/**
 * The gateway never holds the hot-wallet key: it only reads the wallet's balances (treasury
 * view) and needs the address for that. Started with the key in its environment it refuses to
 * run: deleting the variable from `process.env` would not help, since the environment the
 * process was started with stays readable in /proc/<pid>/environ for as long as it runs (a
 * file-read bug in the internet-facing process would hand out the key that signs payouts).
 * Returns the one line to print, or null.
 */
export function hotWalletKeyProblem(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env[HOT_WALLET_KEY] === undefined) return null;
  return (
    `${HOT_WALLET_KEY}: set for the gateway, which never holds the hot-wallet key (its ` +
    'environment stays readable while it runs). Give the key to the job runner only and set ' +
    'HOT_WALLET_ADDRESS for the gateway (npm start does both).'
  );
}

/**
 * Secrets the process has read into its configuration, removed from `process.env`, so a child
 * it might start, or anything that prints the environment, does not carry them on. The names
 * are those the log redaction treats as secret (`isSecretKey`: ENCRYPTION_KEY,
 * HOT_WALLET_PRIVATE_KEY, BANK_WEBHOOK_SECRET, *_SECRET_KEY, *_API_KEY...). This does not
 * change /proc/<pid>/environ (the block the process started with): the job runner, which must
 * sign, keeps its key there, readable by its own user and root only (docs/decisions.md).
 * Returns the names removed.
 */
export function forgetSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  const names = Object.keys(env).filter((name) => isSecretKey(name));
  for (const name of names) delete env[name];
  return names;
}

/**
 * The environment `npm start` gives the gateway: without the hot-wallet key, with its address
 * (derived from the key the job runner gets, which is authoritative) in `HOT_WALLET_ADDRESS`.
 */
export function gatewayEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { [HOT_WALLET_KEY]: key, ...rest } = env;
  if (!key) return rest;
  return { ...rest, HOT_WALLET_ADDRESS: privateKeyToAccount(key as `0x${string}`).address };
}

/** Start-up warnings about how the process handles secrets. */
export function warnAboutSecrets(log: Logger, state: { encryption: Encryption }): void {
  if (state.encryption.developmentKey) {
    log.warn(
      { event: 'development_encryption_key' },
      'ENCRYPTION_KEY is not set: secrets at rest are sealed with the PUBLIC sandbox development ' +
        'key. Set ENCRYPTION_KEY (openssl rand -base64 32) for anything but local development.',
    );
  }
}
