import { existsSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { InvalidArgumentError } from 'commander';
import type { MikroORM } from '@mikro-orm/postgresql';
import { loadConfig, type Config } from '../config';
import { systemClock } from '../clock';
import { openOrm } from '../db/orm';
import { createServices, environmentOf, type Services } from '../container';
import { operatorContext, type OperatorContext } from '../context/request-context';
import { KeyEnvironment } from '../db/entities/api-key.entity';
import type { DepositView } from '../deposits';
import { EMBEDDED_STATE_FILE } from '../embedded/paths';
import { parseFirst } from '../domain/pagination';
import { withSandboxKeyFile } from '../crypto/encryption-keys';

// What every `onramp` command shares: configuration, services, output, argument parsers.

/** Same configuration as the processes; without DATABASE_URL, the database `npm start` runs. */
export function databaseUrlOf(config: Config): string {
  if (config.DATABASE_URL) return config.DATABASE_URL;
  if (existsSync(EMBEDDED_STATE_FILE)) {
    return (JSON.parse(readFileSync(EMBEDDED_STATE_FILE, 'utf8')) as { database_url: string })
      .database_url;
  }
  throw new CliError(
    'DATABASE_URL is not set and no embedded database is running (start one with `npm start`)',
  );
}

export class CliError extends Error {}

/** Ends the command with this exit code once its output is printed (no error message). */
export class CliExit extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}

export async function withServices<T>(
  fn: (orm: MikroORM, services: Services) => Promise<T>,
): Promise<T> {
  // In a sandbox without ENCRYPTION_KEY, the key `npm start` generated: open what it sealed.
  const config = loadConfig(withSandboxKeyFile(process.env));
  const orm = await openOrm({ databaseUrl: databaseUrlOf(config), poolMax: 2 });
  try {
    return await fn(orm, createServices(config, systemClock));
  } finally {
    await orm.close();
  }
}

export function print(json: boolean, value: Record<string, unknown>, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

/** The command's request context: the operator at this terminal, every merchant or one. */
export function operatorContextOf(services: Services, merchantId: string | null): OperatorContext {
  return operatorContext(
    cliActor(),
    { environment: environmentOf(services.config), clock: services.clock },
    merchantId,
  );
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
