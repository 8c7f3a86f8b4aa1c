import { hashSecret } from '../crypto/secret-hash';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { DomainError, ErrorCode } from '../domain/errors';
import { newId, newSecret } from '../domain/ids';
import { ApiKey } from './api-key.entity';
import { KeyEnvironment } from '../domain/key-environment';
import { Merchant } from './merchant.entity';
import { MerchantStatus } from '../domain/merchant-status';
import { moveMerchant } from './merchant-transitions';

export const KEY_PREFIX: Record<KeyEnvironment, string> = {
  [KeyEnvironment.Sandbox]: 'sk_test_',
  [KeyEnvironment.Production]: 'sk_live_',
};

/** Restricted keys: any scope list other than exactly `all`. */
export const RESTRICTED_KEY_PREFIX: Record<KeyEnvironment, string> = {
  [KeyEnvironment.Sandbox]: 'rk_test_',
  [KeyEnvironment.Production]: 'rk_live_',
};

export interface IssuedKey {
  keyId: string;
  merchantId: string;
  environment: KeyEnvironment;
  /** The plain key: returned once, never stored. */
  apiKey: string;
}

/** Merchants and their secret keys (operator use cases: the `onramp` command line). */
export class MerchantService {
  constructor(private readonly clock: Clock) {}

  async create(em: EntityManager, name: string): Promise<Merchant> {
    const trimmed = name.trim();
    if (trimmed.length === 0 || trimmed.length > 200) {
      throw new DomainError(ErrorCode.InvalidParameter, 'Merchant name must be 1-200 characters');
    }
    const now = this.clock.now();
    const merchant = Object.assign(new Merchant(), {
      id: newId('mer', this.clock),
      name: trimmed,
      createdAt: now,
    });
    moveMerchant(merchant, MerchantStatus.ACTIVE, now);
    await em.persistAndFlush(merchant);
    return merchant;
  }

  async get(em: EntityManager, merchantId: string): Promise<Merchant> {
    const merchant = await em.findOne(Merchant, { id: merchantId });
    if (!merchant) throw new DomainError(ErrorCode.NotFound, `No merchant ${merchantId}`);
    return merchant;
  }

  async issueKey(
    em: EntityManager,
    merchantId: string,
    environment: KeyEnvironment,
  ): Promise<IssuedKey> {
    const merchant = await this.get(em, merchantId);
    const apiKey = newSecret(KEY_PREFIX[environment]);
    const row = em.create(ApiKey, {
      id: newId('key', this.clock),
      merchant,
      keyHash: hashSecret(apiKey),
      keyPrefix: apiKey.slice(0, KEY_PREFIX[environment].length + 4),
      environment,
      // The operator's keys are secret keys without a name (the merchant names its own).
      name: null,
      scopes: ['all'],
      allowedIps: null,
      createdAt: this.clock.now(),
      revokedAt: null,
    });
    await em.persistAndFlush(row);
    return { keyId: row.id, merchantId, environment, apiKey };
  }

  /** Revoke by key id (`key_...`) or by the key itself. Revoking twice is harmless. */
  async revokeKey(em: EntityManager, keyIdOrSecret: string): Promise<ApiKey> {
    const where = /^[sr]k_/.test(keyIdOrSecret)
      ? { keyHash: hashSecret(keyIdOrSecret) }
      : { id: keyIdOrSecret };
    const key = await em.findOne(ApiKey, where);
    if (!key) throw new DomainError(ErrorCode.NotFound, 'No such API key');
    key.revokedAt ??= this.clock.now();
    await em.flush();
    return key;
  }

  async listKeys(em: EntityManager, merchantId: string): Promise<ApiKey[]> {
    return em.find(ApiKey, { merchant: merchantId }, { orderBy: { createdAt: 'asc' } });
  }
}
