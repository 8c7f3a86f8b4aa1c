/**
 * The onramps module's entry point: what transports, jobs and other modules may use.
 * Everything else in this folder is the module's own.
 */
export { OnrampService } from './onramp.service';
export { VirtualAccountService } from './virtual-account.service';
export { AccountProvisioning } from './account-provisioning';
export { clientSecretSql, liveClientSecrets } from './client-secret-reads';
export { ONRAMP_HOLDING_NUMBER_SQL, completeThrowaway, onrampDestinations } from './onramp-sql';
export { accountProviderOf, accountProviderSubquery } from './account-provider';
export {
  customerSummary,
  openCustomer,
  resealOnrampCustomers,
  type CustomerFieldName,
  type CustomerSummary,
} from './onramp-customer-store';

import type { Onramp } from './onramp.entity';
/** A onramp as transports and other modules see it: read-only. */
export type OnrampRecord = Readonly<Onramp>;
