import 'reflect-metadata';
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities';
import { migrationsList } from './db/migrations';

export interface OrmOptions {
  databaseUrl: string;
  poolMax?: number;
  debug?: boolean;
}

export function ormConfig(options: OrmOptions): Options {
  return {
    clientUrl: options.databaseUrl,
    entities,
    extensions: [Migrator],
    // Each request and job forks its own EntityManager; the global one must never be used.
    allowGlobalContext: false,
    pool: { min: 0, max: options.poolMax ?? 10 },
    // Numeric columns stay strings end to end; they become Decimals, never floats.
    forceEntityConstructor: false,
    debug: options.debug ?? false,
    migrations: {
      migrationsList,
      transactional: true,
      allOrNothing: true,
      snapshot: false,
    },
    discovery: { warnWhenNoEntities: true },
  };
}

export async function openOrm(options: OrmOptions): Promise<MikroORM> {
  return MikroORM.init(ormConfig(options));
}

export async function migrate(orm: MikroORM): Promise<void> {
  await orm.getMigrator().up();
}
