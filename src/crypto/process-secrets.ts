import type { Logger } from 'pino';
import { privateKeyToAccount } from 'viem/accounts';
import type { Encryption } from './encryption-keys';

const HOT_WALLET_KEY = 'HOT_WALLET_PRIVATE_KEY';

/**
 * The gateway never holds the hot-wallet key: it only reads the wallet's balances (treasury
 * view) and needs the address for that. Called first thing, so neither its configuration nor
 * anything it builds (or a child it might start) sees the key. Returns whether one was dropped.
 */
export function dropHotWalletKey(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env[HOT_WALLET_KEY] === undefined) return false;
  delete env[HOT_WALLET_KEY];
  return true;
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
export function warnAboutSecrets(
  log: Logger,
  state: { droppedHotWalletKey?: boolean; encryption: Encryption },
): void {
  if (state.droppedHotWalletKey) {
    log.warn(
      { event: 'hot_wallet_key_ignored' },
      'HOT_WALLET_PRIVATE_KEY is set but ignored: the gateway never holds the hot-wallet key. ' +
        'Give it to the job runner only, and set HOT_WALLET_ADDRESS for the gateway.',
    );
  }
  if (state.encryption.developmentKey) {
    log.warn(
      { event: 'development_encryption_key' },
      'ENCRYPTION_KEY is not set: secrets at rest are sealed with the PUBLIC sandbox development ' +
        'key. Set ENCRYPTION_KEY (openssl rand -base64 32) for anything but local development.',
    );
  }
}
