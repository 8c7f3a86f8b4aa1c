import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { MikroORM } from '@mikro-orm/postgresql';
import { type Services, environmentOf } from '../container';
import { DomainError } from '../domain/errors';

export interface SandboxCredentials {
  merchant_id: string;
  api_key: string;
}

/**
 * The sandbox merchant `npm start` prints. Its key is kept in `.data/` (local development
 * only) so restarts print the same key; a revoked or missing key is replaced.
 */
export async function ensureSandboxMerchant(
  orm: MikroORM,
  services: Services,
  file: string,
): Promise<SandboxCredentials> {
  const em = orm.em.fork();
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as SandboxCredentials;
    try {
      const principal = await services.auth.authenticate(em, `Bearer ${saved.api_key}`);
      if (principal.merchantId === saved.merchant_id) return saved;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
    }
  }
  const merchant = await services.merchants.create(em, 'Sandbox Merchant');
  const key = await services.merchants.issueKey(em, merchant.id, environmentOf(services.config));
  const credentials = { merchant_id: merchant.id, api_key: key.apiKey };
  writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  return credentials;
}
