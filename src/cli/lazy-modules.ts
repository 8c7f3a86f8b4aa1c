/* eslint-disable @typescript-eslint/no-require-imports */
import type * as ConfigModule from '../config';
import type * as ContainerModule from '../container';
import type * as OrmModule from '../orm';
import type * as MikroOrmModule from '@mikro-orm/postgresql';
import type * as DepositsModule from '../deposits';
import type * as ReconciliationModule from '../reconciliation';
import type * as ReencryptModule from '../flows/reencrypt-secrets';
import type * as ReportsModule from '../reports';
import type * as RequestContextModule from '../context/request-context';
import type * as SanctionsModule from '../sanctions';
import type * as SanctionsListModule from '../domain/sanctions-list';
import type * as MigrationStatusModule from '../db/migration-status';

/**
 * The service's heavy modules, loaded on first use. MikroORM, viem (through the configuration
 * and the container), pg and the services take about a second to load; `onramp --help`,
 * `--version` and usage errors need none of them. `require` (not `import()`) keeps them typed,
 * synchronous and loadable under jest's CommonJS transform.
 */
export const lazy = {
  config: (): typeof ConfigModule => require('../config'),
  orm: (): typeof OrmModule => {
    // Entities' decorators read reflected types: the polyfill loads before any of them.
    require('reflect-metadata');
    return require('../orm');
  },
  mikroOrm: (): typeof MikroOrmModule => require('@mikro-orm/postgresql'),
  container: (): typeof ContainerModule => {
    require('reflect-metadata');
    return require('../container');
  },
  requestContext: (): typeof RequestContextModule => require('../context/request-context'),
  deposits: (): typeof DepositsModule => require('../deposits'),
  reconciliation: (): typeof ReconciliationModule => require('../reconciliation'),
  reencrypt: (): typeof ReencryptModule => require('../flows/reencrypt-secrets'),
  reports: (): typeof ReportsModule => require('../reports'),
  sanctions: (): typeof SanctionsModule => require('../sanctions'),
  sanctionsList: (): typeof SanctionsListModule => require('../domain/sanctions-list'),
  migrationStatus: (): typeof MigrationStatusModule => require('../db/migration-status'),
};
