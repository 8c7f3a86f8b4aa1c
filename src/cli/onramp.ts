import 'reflect-metadata';
import { existsSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
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
import { presentDeposit } from '../api/rest/deposit.presenter';
import type { Deposit } from '../db/entities/deposit.entity';
import { decodeCursor, encodeCursor, parseFirst } from '../domain/pagination';
import { withSandboxKeyFile } from '../crypto/encryption-keys';
import { reencryptAll } from '../crypto/reencrypt';

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
  // In a sandbox without ENCRYPTION_KEY, the key `npm start` generated: open what it sealed.
  const config = loadConfig(withSandboxKeyFile(process.env));
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

/** Who the audit log records for actions taken here: the operating-system user. */
function cliActor(): string {
  let name: string | undefined;
  try {
    name = userInfo().username;
  } catch {
    name = process.env.USER;
  }
  return `cli:${name || 'unknown'}`;
}

function parseLimit(value: string): number {
  const n = Number(value);
  try {
    return parseFirst(n);
  } catch {
    throw new InvalidArgumentError('must be an integer from 1 to 100');
  }
}

function depositLine(d: Deposit): string {
  const reason = d.flagReason ?? d.failureReason ?? '';
  return `${d.id}  ${d.merchantId}  ${d.status}  ${d.amountNgn} NGN  ${d.createdAt.toISOString()}  ${reason}`;
}

function parseEnvironment(value: string): KeyEnvironment {
  if (value === 'sandbox' || value === 'production') return value as KeyEnvironment;
  throw new InvalidArgumentError('must be sandbox or production');
}

function parseOnOff(value: string): boolean {
  if (value === 'on' || value === 'off') return value === 'on';
  throw new InvalidArgumentError('must be on or off');
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
        const { merchant, key } = await services.operator.createMerchant(
          orm.em,
          cliActor(),
          opts.name,
          environmentOf(services.config),
        );
        print(
          !!opts.json,
          { merchant_id: merchant.id, api_key: key.apiKey },
          `Merchant ${merchant.id} created.\nAPI key (shown once): ${key.apiKey}`,
        );
      }),
    );

  for (const [verb, frozen] of [
    ['freeze', true],
    ['unfreeze', false],
  ] as const) {
    merchants
      .command(verb)
      .description(
        frozen
          ? 'Freeze a merchant: no new onramps or withdrawals; its incoming transfers are FLAGGED'
          : 'Unfreeze a merchant: onramps, withdrawals and deposits work again',
      )
      .argument('<merchantId>', 'merchant id (mer_...)')
      .option('--json', 'print JSON')
      .action(async (merchantId: string, opts: { json?: boolean }) =>
        withServices(async (orm, services) => {
          const merchant = await services.operator.setMerchantFrozen(
            orm.em,
            cliActor(),
            merchantId,
            frozen,
          );
          print(
            !!opts.json,
            { merchant_id: merchant.id, status: merchant.status },
            `Merchant ${merchant.id} is ${merchant.status}.`,
          );
        }),
      );
  }

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
        const key = await services.operator.issueKey(
          orm.em,
          cliActor(),
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
        const revoked = await services.operator.revokeKey(orm.em, cliActor(), key);
        print(
          !!opts.json,
          { key_id: revoked.keyId, revoked_at: revoked.revokedAt.toISOString() },
          `Key ${revoked.keyId} revoked.`,
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
        const delivery = await services.operator.replayWebhook(orm.em, cliActor(), eventId);
        print(
          !!opts.json,
          { delivery_id: delivery.id, event_id: delivery.eventId, status: delivery.status },
          `Delivery ${delivery.id} of ${delivery.eventId} queued; the job runner sends it now.`,
        );
      }),
    );

  const deposits = program.command('deposits').description('Review and resolve deposits');
  deposits
    .command('flagged')
    .description('List FLAGGED deposits with their reasons, newest first')
    .option('--merchant <id>', 'only this merchant')
    .option('--limit <n>', 'how many (1-100, default 20)', parseLimit)
    .option('--after <cursor>', 'continue after this cursor (printed with --json)')
    .option('--json', 'print JSON: REST Deposit objects and the next cursor')
    .action(async (opts: { merchant?: string; limit?: number; after?: string; json?: boolean }) =>
      withServices(async (orm, services) => {
        const page = await services.operator.listFlagged(orm.em, {
          merchantId: opts.merchant ?? null,
          after: opts.after ? decodeCursor(opts.after) : null,
          limit: opts.limit ?? 20,
        });
        const last = page.deposits[page.deposits.length - 1];
        print(
          !!opts.json,
          {
            deposits: page.deposits.map(presentDeposit),
            next_cursor: page.hasMore && last ? encodeCursor(last) : null,
          },
          page.deposits.length === 0
            ? 'No FLAGGED deposits.'
            : page.deposits.map(depositLine).join('\n'),
        );
      }),
    );
  deposits
    .command('resolve')
    .description(
      'Resolve a FLAGGED deposit: --settle converts it at the current rate (PENDING_FX), --return sends the NGN back (FAILED)',
    )
    .argument('<depositId>', 'deposit id (dep_...)')
    .option('--settle', 'move to PENDING_FX at the current rate')
    .option('--return', "move to FAILED 'Returned to sender after review'")
    .option('--json', 'print the REST Deposit')
    .action(async function (
      this: Command,
      depositId: string,
      opts: { settle?: boolean; return?: boolean; json?: boolean },
    ) {
      if (!!opts.settle === !!opts.return) {
        this.error('error: give exactly one of --settle or --return', { exitCode: 2 });
      }
      await withServices(async (orm, services) => {
        const deposit = await services.operator.resolveDeposit(
          orm.em,
          cliActor(),
          depositId,
          opts.settle ? 'settle' : 'return',
        );
        print(!!opts.json, presentDeposit(deposit), `Deposit ${deposit.id} is ${deposit.status}.`);
      });
    });
  deposits
    .command('reverse')
    .description('Record a bank reversal of a transfer, by its bank reference')
    .argument('<bankReference>', "the bank's reference of the transfer")
    .option('--json', 'print the REST Deposit')
    .action(async (bankReference: string, opts: { json?: boolean }) =>
      withServices(async (orm, services) => {
        const outcome = await services.operator.recordReversal(orm.em, cliActor(), bankReference);
        print(
          !!opts.json,
          presentDeposit(outcome.deposit),
          outcome.reversed
            ? `Reversal recorded: deposit ${outcome.deposit.id} is ${outcome.deposit.status}.`
            : `Deposit ${outcome.deposit.id} was already reversed (${outcome.deposit.status}).`,
        );
      }),
    );

  program
    .command('sandbox')
    .description('Sandbox fault switches for the whole deployment (operator only)')
    .command('rate-source-down')
    .description(
      'Take the rate source down for every merchant (on: no new rates; quotes answer rate_unavailable once the last ones expire) or bring it back (off)',
    )
    .argument('<state>', 'on or off', parseOnOff)
    .option('--json', 'print JSON')
    .action(async (down: boolean, opts: { json?: boolean }) =>
      withServices(async (orm, services) => {
        if (services.config.ONRAMP_ENV !== 'sandbox') {
          throw new CliError('sandbox switches are not available in production');
        }
        const now = await services.sandbox.setDeploymentRateSourceDown(orm.em, cliActor(), down);
        print(
          !!opts.json,
          { rate_source_down: now },
          `Rate source is ${now ? 'down for every merchant' : 'up'}.`,
        );
      }),
    );

  const operators = program
    .command('operators')
    .description('Operator tokens for the admin GraphQL endpoint (/admin/graphql)');
  operators
    .command('issue')
    .description('Issue a token for one person; shown once')
    .requiredOption('--name <name>', 'who will use it (recorded in the audit log)')
    .option('--json', 'print JSON')
    .action(async (opts: { name: string; json?: boolean }) =>
      withServices(async (orm, services) => {
        const issued = await services.operator.issueOperatorToken(orm.em, cliActor(), opts.name);
        print(
          !!opts.json,
          { token_id: issued.tokenId, name: issued.name, token: issued.token },
          `Operator token ${issued.tokenId} for ${issued.name}.\nToken (shown once): ${issued.token}`,
        );
      }),
    );
  operators
    .command('revoke')
    .description('Revoke an operator token')
    .argument('<tokenId>', 'token id (opt_...)')
    .option('--json', 'print JSON')
    .action(async (tokenId: string, opts: { json?: boolean }) =>
      withServices(async (orm, services) => {
        const revoked = await services.operator.revokeOperatorToken(orm.em, cliActor(), tokenId);
        print(
          !!opts.json,
          { token_id: tokenId, name: revoked.name, revoked_at: revoked.revokedAt.toISOString() },
          `Operator token ${tokenId} (${revoked.name}) revoked.`,
        );
      }),
    );

  program
    .command('treasury')
    .description(
      'What the operator holds: NGN in clearing (service-owned) and in suspense/returns (excluded: FLAGGED, FAILED), USD owed to merchants and on-chain, every operator account, deposits by status, hot-wallet balances per chain and asset',
    )
    .action(async () =>
      withServices(async (orm, services) => {
        const report = await services.treasury.report(orm.em.fork());
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      }),
    );

  program
    .command('audit')
    .description('The audit log of operator actions, newest first')
    .option('--target <id>', 'only actions on this merchant, deposit, key, event or token')
    .option('--limit <n>', 'how many (1-100, default 20)', parseLimit)
    .option('--json', 'print JSON')
    .action(async (opts: { target?: string; limit?: number; json?: boolean }) =>
      withServices(async (orm, services) => {
        const { entries } = await services.auditLog.list(orm.em.fork(), {
          targetId: opts.target ?? null,
          limit: opts.limit ?? 20,
        });
        print(
          !!opts.json,
          {
            entries: entries.map((e) => ({
              id: e.id,
              actor: e.actor,
              action: e.action,
              target_type: e.targetType,
              target_id: e.targetId,
              before: e.before,
              after: e.after,
              created_at: e.createdAt.toISOString(),
            })),
          },
          entries.length === 0
            ? 'No audit entries.'
            : entries
                .map(
                  (e) =>
                    `${e.createdAt.toISOString()}  ${e.actor}  ${e.action}  ${e.targetId}  ${JSON.stringify(e.before)} -> ${JSON.stringify(e.after)}`,
                )
                .join('\n'),
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
    .command('secrets')
    .description('Secrets stored at rest (webhook secrets, idempotent responses)')
    .command('reencrypt')
    .description(
      'Seal every stored secret under the current ENCRYPTION_KEY (after a rotation, keep the old key in ENCRYPTION_KEY_PREVIOUS until this has run)',
    )
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) =>
      withServices(async (orm, services) => {
        const report = await reencryptAll(
          orm.em.fork(),
          services.encryption.box,
          services.webhookEndpoints,
        );
        print(
          !!opts.json,
          { ...report },
          `Sealed under key ${report.key_id}: ${report.webhook_endpoints} webhook endpoint(s), ` +
            `${report.idempotency_responses} idempotent response(s) rewritten.`,
        );
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
