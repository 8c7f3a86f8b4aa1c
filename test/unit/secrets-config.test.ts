import { randomBytes } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import { ConfigError, loadConfig } from '../../src/config';
import { keyId, parseKey, SecretBox, SecretDecryptError } from '../../src/crypto/secret-box';
import {
  encryptionFromConfig,
  ensureSandboxKeyFile,
  withSandboxKeyFile,
} from '../../src/crypto/encryption-keys';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  forgetSecrets,
  gatewayEnvironment,
  hotWalletKeyProblem,
} from '../../src/crypto/process-secrets';
import { chainRegistryFromConfig } from '../../src/adapters/chain/chain-registry';
import { LOCAL_HOT_WALLET_PRIVATE_KEY } from '../../src/embedded/local-chains';
import { maskString, redactLogLine } from '../../src/logging/redact';

const HOT_WALLET = privateKeyToAccount(LOCAL_HOT_WALLET_PRIVATE_KEY).address;
const CHAIN_ENV = {
  BASE_RPC_URL: 'http://127.0.0.1:1',
  BASE_USDC_ADDRESS: `0x${'1'.repeat(40)}`,
  BASE_USDT_ADDRESS: `0x${'2'.repeat(40)}`,
};

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('ENCRYPTION_KEY and the hot wallet in the configuration', () => {
  it('production refuses to start without ENCRYPTION_KEY, naming it', () => {
    const found = problems({ ONRAMP_ENV: 'production' });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^ENCRYPTION_KEY: is required in production/);
    const key = randomBytes(32);
    expect(
      loadConfig({ ONRAMP_ENV: 'production', ENCRYPTION_KEY: key.toString('hex') }),
    ).toBeTruthy();
    expect(
      loadConfig({ ONRAMP_ENV: 'production', ENCRYPTION_KEY: key.toString('base64') }),
    ).toBeTruthy();
  });

  it.each([
    ['ENCRYPTION_KEY', 'short'],
    ['ENCRYPTION_KEY', randomBytes(16).toString('base64')],
    ['ENCRYPTION_KEY', randomBytes(31).toString('hex')],
    ['ENCRYPTION_KEY_PREVIOUS', `${randomBytes(32).toString('base64')},nope`],
    ['IDEMPOTENCY_LEASE_SECONDS', '0'],
    ['CLIENT_SECRET_GRACE_SECONDS', '-1'],
    ['HOT_WALLET_ADDRESS', '0x1234'],
  ])('refuses %s=%p with a message naming it', (name, value) => {
    expect(problems({ [name]: value }).some((p) => p.startsWith(`${name}:`))).toBe(true);
  });

  it('refuses a HOT_WALLET_ADDRESS that is not the key’s', () => {
    expect(
      problems({
        HOT_WALLET_PRIVATE_KEY: LOCAL_HOT_WALLET_PRIVATE_KEY,
        HOT_WALLET_ADDRESS: `0x${'3'.repeat(40)}`,
      }),
    ).toEqual(['HOT_WALLET_ADDRESS: is not the address of HOT_WALLET_PRIVATE_KEY']);
  });

  it('defaults: 60 s lease, one day of grace; the sandbox falls back to the public development key', () => {
    const config = loadConfig({});
    expect(config.IDEMPOTENCY_LEASE_SECONDS).toBe(60);
    expect(config.CLIENT_SECRET_GRACE_SECONDS).toBe(86_400);
    expect(encryptionFromConfig(config).developmentKey).toBe(true);
    expect(
      encryptionFromConfig(loadConfig({ ENCRYPTION_KEY: randomBytes(32).toString('hex') }))
        .developmentKey,
    ).toBe(false);
  });
});

describe('SecretBox', () => {
  const current = randomBytes(32);
  const old = randomBytes(32);
  const box = new SecretBox(current, [old]);

  it('seals with a key id prefix, a fresh nonce each time, and opens with its context only', () => {
    const a = box.seal('whsec_abc', 'ctx');
    const b = box.seal('whsec_abc', 'ctx');
    expect(a).toMatch(new RegExp(`^enc:v1:${keyId(current)}:`));
    expect(a).not.toBe(b);
    expect(box.open(a, 'ctx')).toBe('whsec_abc');
    expect(() => box.open(a, 'other')).toThrow(SecretDecryptError);
  });

  it('opens values of a previous key, reseals them under the current one, refuses plaintext', () => {
    const sealedOld = new SecretBox(old).seal('s', 'c');
    expect(box.open(sealedOld, 'c')).toBe('s');
    expect(box.isCurrent(sealedOld)).toBe(false);
    const resealed = box.reseal(sealedOld, 'c');
    expect(box.isCurrent(resealed)).toBe(true);
    // An unprefixed value is never a secret: refused, except by the operator's reencrypt.
    expect(() => box.open('whsec_plain', 'c')).toThrow(/not sealed/);
    expect(() => box.open('', 'c')).toThrow(SecretDecryptError);
    expect(() => box.reseal('whsec_plain', 'c')).toThrow(/not sealed/);
    const sealedLegacy = box.reseal('whsec_plain', 'c', { legacyPlaintext: true });
    expect(box.isCurrent(sealedLegacy)).toBe(true);
    expect(box.open(sealedLegacy, 'c')).toBe('whsec_plain');
    // A sealed value is not taken for a plaintext, even when the caller expects legacy ones.
    expect(box.reseal(sealedOld, 'c', { legacyPlaintext: true })).not.toContain('enc:v1:enc:');
    expect(box.open(box.reseal(sealedOld, 'c', { legacyPlaintext: true }), 'c')).toBe('s');
    expect(() => new SecretBox(randomBytes(32)).open(resealed, 'c')).toThrow(
      /neither ENCRYPTION_KEY/,
    );
  });

  it('parses keys as 64 hex digits or base64 of 32 bytes, nothing else', () => {
    const key = randomBytes(32);
    expect(parseKey(key.toString('hex'))).toEqual(key);
    expect(parseKey(key.toString('base64'))).toEqual(key);
    expect(parseKey(key.toString('base64url'))).toEqual(key);
    expect(parseKey(randomBytes(33).toString('base64'))).toBeNull();
    expect(parseKey('')).toBeNull();
  });
});

describe('the gateway and the hot-wallet key', () => {
  it('npm start gives the gateway the address, never the key', () => {
    const env = gatewayEnvironment({
      PATH: '/bin',
      HOT_WALLET_PRIVATE_KEY: LOCAL_HOT_WALLET_PRIVATE_KEY,
    });
    expect(env).toEqual({ PATH: '/bin', HOT_WALLET_ADDRESS: HOT_WALLET });
  });

  it('a gateway handed the key anyway refuses to start, naming it', () => {
    expect(hotWalletKeyProblem({ HOT_WALLET_PRIVATE_KEY: LOCAL_HOT_WALLET_PRIVATE_KEY })).toMatch(
      /^HOT_WALLET_PRIVATE_KEY: .*job runner only/,
    );
    expect(hotWalletKeyProblem({ HOT_WALLET_PRIVATE_KEY: '' })).not.toBeNull();
    expect(hotWalletKeyProblem({ HOT_WALLET_ADDRESS: HOT_WALLET })).toBeNull();
  });

  it('processes forget the secrets they read; names that describe secrets stay', () => {
    const env: NodeJS.ProcessEnv = {
      PATH: '/bin',
      ENCRYPTION_KEY: 'k',
      ENCRYPTION_KEY_PREVIOUS: 'p',
      HOT_WALLET_PRIVATE_KEY: LOCAL_HOT_WALLET_PRIVATE_KEY,
      BANK_WEBHOOK_SECRET: 's',
      PAYSTACK_SECRET_KEY: 'x',
      MONNIFY_API_KEY: 'y',
      HOT_WALLET_ADDRESS: HOT_WALLET,
      WEBHOOK_SECRET_ROTATION_SECONDS: '60',
    };
    expect(forgetSecrets(env).sort()).toEqual(
      [
        'BANK_WEBHOOK_SECRET',
        'ENCRYPTION_KEY',
        'ENCRYPTION_KEY_PREVIOUS',
        'HOT_WALLET_PRIVATE_KEY',
        'MONNIFY_API_KEY',
        'PAYSTACK_SECRET_KEY',
      ].sort(),
    );
    expect(env).toEqual({
      PATH: '/bin',
      HOT_WALLET_ADDRESS: HOT_WALLET,
      WEBHOOK_SECRET_ROTATION_SECONDS: '60',
    });
  });

  it('a gateway configured with the address alone cannot sign', () => {
    const env: NodeJS.ProcessEnv = { ...CHAIN_ENV, HOT_WALLET_ADDRESS: HOT_WALLET };
    const config = loadConfig(env);
    expect(JSON.stringify(config)).not.toContain(LOCAL_HOT_WALLET_PRIVATE_KEY.slice(2));
    const base = chainRegistryFromConfig(config).get('BASE')!;
    expect(base.hotWallet).toBe(HOT_WALLET);
    return expect(
      base.signTransfer({
        asset: 'USDC',
        to: HOT_WALLET,
        amount: 1n,
        nonce: 0,
        fees: { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n },
      }),
    ).rejects.toThrow(/holds no hot-wallet key/);
  });
});

describe('log redaction of the encryption keys', () => {
  it('masks ENCRYPTION_KEY and ENCRYPTION_KEY_PREVIOUS by name', () => {
    const key = randomBytes(32).toString('base64');
    expect(maskString(`ENCRYPTION_KEY=${key}`)).not.toContain(key);
    expect(redactLogLine(JSON.stringify({ ENCRYPTION_KEY_PREVIOUS: key }))).not.toContain(key);
  });
});

describe('the sandbox key file of npm start', () => {
  it('is generated once (owner-only), reused, and found by the command line in the sandbox only', () => {
    const dir = mkdtempSync(join(tmpdir(), 'onramp-key-'));
    try {
      const file = join(dir, 'encryption-key');
      const key = ensureSandboxKeyFile(file);
      expect(parseKey(key)).not.toBeNull();
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(ensureSandboxKeyFile(file)).toBe(key);
      expect(withSandboxKeyFile({}, file).ENCRYPTION_KEY).toBe(key);
      expect(withSandboxKeyFile({ ENCRYPTION_KEY: 'set' }, file).ENCRYPTION_KEY).toBe('set');
      expect(withSandboxKeyFile({ ONRAMP_ENV: 'production' }, file).ENCRYPTION_KEY).toBeUndefined();
      expect(withSandboxKeyFile({}, join(dir, 'absent')).ENCRYPTION_KEY).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
