import 'reflect-metadata';
import { existsSync, readFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import type { MikroORM } from '@mikro-orm/postgresql';
import { loadConfig, type Config } from '../config';
import { systemClock } from '../clock';
import { migrate, openOrm } from '../db/orm';
import { createServices, environmentOf, type Services } from '../services';
import { KeyEnvironment } from '../db/entities/api-key.entity';
import { DomainError } from '../domain/errors';
import { EMBEDDED_STATE_FILE } from '../embedded/paths';
import { checkLedger, LEDGER_CHECK_NAMES } from '../services/ledger-check';

/** Same configuration as the processes; without DATABASE_URL, the database `npm start` runs. */
function databaseUrlOf(config: Config): string {
  if (config.DATABASE_URL) return config.DATABASE_URL;
  if (existsSync(EMBEDDED_STATE_FILE)) {
    return (JSON.parse(readFileSync(EMBEDDED_STATE_FILE, 'utf8')) as { database_url: string })
      .database_url;
  }
  throw new CliError(
    'DATABASE_URL is not set and no embedded database is running (start one with `npm start`)',
  );
}

class CliError extends Error {}

/** Ends the command with this exit code once its output is printed (no error message). */
class CliExit extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}

async function withServices<T>(fn: (orm: MikroORM, services: Services) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const orm = await openOrm({ databaseUrl: databaseUrlOf(config), poolMax: 2 });
  try {
    return await fn(orm, createServices(config, systemClock));
  } finally {
    await orm.close();
  }
}

function print(json: boolean, value: Record<string, unknown>, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

function parseEnvironment(value: string): KeyEnvironment {
  if (value === 'sandbox' || value === 'production') return value as KeyEnvironment;
  throw new InvalidArgumentError('must be sandbox or production');
}

export function buildCli(): Command {
  const program = new Command('onramp').description(
    'Operator command line of the NGN onramp service',
  );
  program.exitOverride();

  const merchants = program.command('merchants').description('Create and manage merchants');
  merchants
    .command('create')
    .description('Create a merchant and issue its first secret key')
    .requiredOption('--name <name>', 'merchant name')
    .option('--json', 'print {"merchant_id","api_key"}')
    .action(async (opts: { name: string; json?: boolean }) =>
      withServices(async (orm, services) => {
        const em = orm.em.fork();
        const merchant = await services.merchants.create(em, opts.name);
        const key = await services.merchants.issueKey(
          em,
          merchant.id,
          environmentOf(services.config),
        );
        print(
          !!opts.json,
          { merchant_id: merchant.id, api_key: key.apiKey },
          `Merchant ${merchant.id} created.\nAPI key (shown once): ${key.apiKey}`,
        );
      }),
    );

  const keys = program.command('keys').description('Issue and revoke secret API keys');
  keys
    .command('issue')
    .description('Issue a new secret key for a merchant')
    .requiredOption('--merchant <id>', 'merchant id')
    .option(
      '--env <environment>',
      'sandbox or production (default: this deployment)',
      parseEnvironment,
    )
    .option('--json', 'print JSON')
    .action(async (opts: { merchant: string; env?: KeyEnvironment; json?: boolean }) =>
      withServices(async (orm, services) => {
        const key = await services.merchants.issueKey(
          orm.em.fork(),
          opts.merchant,
          opts.env ?? environmentOf(services.config),
        );
        print(
          !!opts.json,
          {
            key_id: key.keyId,
            merchant_id: key.merchantId,
            environment: key.environment,
            api_key: key.apiKey,
          },
          `Key ${key.keyId} issued (${key.environment}).\nAPI key (shown once): ${key.apiKey}`,
        );
      }),
    );
  keys
    .command('revoke')
    .description('Revoke a key, by key id (key_...) or by the key itself')
    .argument('<key>', 'key id or secret key')
    .option('--json', 'print JSON')
    .action(async (key: string, opts: { json?: boolean }) =>
      withServices(async (orm, services) => {
        const revoked = await services.merchants.revokeKey(orm.em.fork(), key);
        print(
          !!opts.json,
          { key_id: revoked.id, revoked_at: revoked.revokedAt?.toISOString() },
          `Key ${revoked.id} revoked.`,
        );
      }),
    );

  program
    .command('webhooks')
    .description('Webhook deliveries')
    .command('replay')
    .description("Send an event again to its merchant's endpoint, as a new delivery")
    .argument('<eventId>', 'event id (evt_...)')
    .option('--json', 'print JSON')
    .action(async (eventId: string, opts: { json?: boolean }) =>
      withServices(async (orm, services) => {
        const delivery = await services.webhookLog.replay(orm.em.fork(), null, eventId);
        print(
          !!opts.json,
          { delivery_id: delivery.id, event_id: delivery.eventId, status: delivery.status },
          `Delivery ${delivery.id} of ${delivery.eventId} queued; the job runner sends it now.`,
        );
      }),
    );

  program
    .command('db')
    .description('Database maintenance')
    .command('migrate')
    .description('Apply pending migrations')
    .action(async () =>
      withServices(async (orm) => {
        await migrate(orm);
        process.stdout.write('Migrations applied.\n');
      }),
    );

  program
    .command('ledger')
    .description('Ledger reconciliation')
    .command('check')
    .description(
      'Check the ledger against deposits, balances, daily volumes and events; prints a JSON report, exits 1 on any violation',
    )
    .action(async () =>
      withServices(async (orm) => {
        const connection = orm.em.getConnection();
        const violations = await checkLedger((sql, params) => connection.execute(sql, params));
        const report = {
          ok: violations.length === 0,
          checked: LEDGER_CHECK_NAMES,
          violations,
        };
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        if (!report.ok) throw new CliExit(1);
      }),
    );

  return program;
}

export async function runCli(argv: string[]): Promise<number> {
  try {
    await buildCli().parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version') return 0;
    if (code?.startsWith('commander.')) return 2;
    if (error instanceof CliExit) return error.exitCode;
    const message =
      error instanceof DomainError || error instanceof CliError
        ? error.message
        : String((error as Error)?.stack ?? error);
    process.stderr.write(`onramp: ${message}\n`);
    return 1;
  }
}

if (require.main === module) {
  runCli(process.argv.slice(2)).then((code) => process.exit(code));
}
