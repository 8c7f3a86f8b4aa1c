import { environmentOf, type Services } from '../../src/container';
import { merchantContext, type MerchantContext } from '../../src/context/request-context';

/** Request contexts as the transports build them, for service-level tests. */
export function secretKeyContext(services: Services, merchantId: string): MerchantContext {
  return merchantContext(
    { kind: 'secret_key', merchantId, keyId: 'key_test', scopes: ['all'] },
    deployment(services),
  );
}

export function clientSecretContext(
  services: Services,
  merchantId: string,
  onrampId: string,
): MerchantContext {
  return merchantContext({ kind: 'client_secret', merchantId, onrampId }, deployment(services));
}

function deployment(services: Services) {
  return { environment: environmentOf(services.config), clock: services.clock };
}
