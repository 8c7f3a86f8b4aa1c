import { existsSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { InvalidArgumentError } from 'commander';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import type { Services } from '../container';
import type { OperatorContext } from '../context/request-context';
import type { KeyEnvironment } from '../domain/key-environment';
import type { DepositView } from '../deposits';
import { systemClock } from '../clock';
import { EMBEDDED_STATE_FILE } from '../embedded/paths';
import { parseFirst } from '../domain/pagination';
import { withSandboxKeyFile } from '../crypto/encryption-keys';
import { CliFailure, EXIT } from './cli-errors';
import { lazy } from './lazy-modules';

// What every `onramp` command shares: configuration, services, output, argument parsers. Only
// type imports of the service's modules here: `lazy` loads them when a command runs.

/** Same configuration as the processes; without DATABASE_URL, the database `npm start` runs. */
export function databaseUrlOf(config: Config): string {
  if (config.DATABASE_URL) return config.DATABASE_URL;
  if (existsSync(EMBEDDED_STATE_FILE)) {
    return (JSON.parse(readFileSync(EMBEDDED_STATE_FILE, 'utf8')) as { database_url: string })
      .database_url;
  }
  throw new CliFailure(
    'configuration_error',
    'DATABASE_URL is not set and no embedded database is running (start one with `npm start`)',
    EXIT.configuration,
  );
}

/** The processes' configuration; a bad value is the operator's to fix, not a bug. */
export function cliConfig(): Config {
  const { loadConfig, ConfigError } = lazy.config();
  try {
    // In a sandbox without ENCRYPTION_KEY, the key `npm start` generated: open what it sealed.
    return loadConfig(withSandboxKeyFile(process.env));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new CliFailure(
      'configuration_error',
      `invalid configuration: ${error.problems.join('; ')}`,
      EXIT.configuration,
    );
  }
}

/**
 * The ORM on the configured database, with a pool of two. `createDatabase` (db migrate only):
 * otherwise a mistyped database name is an error, not a new empty database.
 */
export async function openCliOrm(
  databaseUrl: string,
  { createDatabase = false } = {},
): Promise<MikroORM> {
  const { ormConfig } = lazy.orm();
  const base = ormConfig({ databaseUrl, poolMax: 2 });
  return lazy.mikroOrm().MikroORM.init({
    ...base,
    ensureDatabase: createDatabase,
    // The migrator's progress lines would land on stdout, in the middle of a JSON document.
    migrations: { ...base.migrations, silent: true },
  });
}

export async function withServices<T>(
  fn: (orm: MikroORM, services: Services) => Promise<T>,
  options: { createDatabase?: boolean } = {},
): Promise<T> {
  const config = cliConfig();
  const orm = await openCliOrm(databaseUrlOf(config), options);
  try {
    return await fn(orm, lazy.container().createServices(config, systemClock));
  } finally {
    await orm.close();
  }
}

export function print(json: boolean, value: object, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

/** The command's request context: the operator at this terminal, every merchant or one. */
export function operatorContextOf(services: Services, merchantId: string | null): OperatorContext {
  return lazy
    .requestContext()
    .operatorContext(
      cliActor(),
      { environment: environmentOf(services.config), clock: services.clock },
      merchantId,
    );
}

/** The key environment of this deployment (sandbox or production). */
export function environmentOf(config: Config): KeyEnvironment {
  return lazy.container().environmentOf(config);
}

/** Who the audit log records for actions taken here: the operating-system user. */
export function cliActor(): string {
  let name: string | undefined;
  try {
    name = userInfo().username;
  } catch {
    name = process.env.USER;
  }
  return `cli:${name || 'unknown'}`;
}

export function parseLimit(value: string): number {
  const n = Number(value);
  try {
    return parseFirst(n);
  } catch {
    throw new InvalidArgumentError('must be an integer from 1 to 100');
  }
}

export function depositLine(d: DepositView): string {
  const reason = d.flagReason ?? d.failureReason ?? '';
  return `${d.id}  ${d.merchantId}  ${d.status}  ${d.amountNgn} NGN  ${d.createdAt.toISOString()}  ${reason}`;
}

export function parseEnvironment(value: string): KeyEnvironment {
  if (value === 'sandbox' || value === 'production') return value as KeyEnvironment;
  throw new InvalidArgumentError('must be sandbox or production');
}

export function parseOnOff(value: string): boolean {
  if (value === 'on' || value === 'off') return value === 'on';
  throw new InvalidArgumentError('must be on or off');
}
