import { Command } from 'commander';
import type { KeyEnvironment } from '../domain/key-environment';
import { encodeCursor } from '../domain/pagination';
import { VERSION } from '../version';
import {
  cliActor,
  operatorContextOf,
  depositLine,
  environmentOf,
  parseEnvironment,
  parseLimit,
  print,
  withServices,
} from './cli-support';
import { CliExit, EXIT, reportError } from './cli-errors';
import { lazy } from './lazy-modules';
import { addSystemCommands } from './system-commands';
import { addReportCommands } from './report-commands';
import { addSanctionsCommands } from './sanctions-commands';
import { addMerchantTermsCommands } from './merchant-terms-commands';

// The operator command line. This file and the ones it imports load in well under a second:
// everything that talks to the database comes in through `lazy` when a command runs.

/** The program; with `json`, nothing but the JSON error reaches stderr (no help text). */
export function buildCli({ json = false } = {}): Command {
  const program = new Command('onramp')
    .description('Operator command line of the NGN onramp service')
    .version(VERSION, '-V, --version', 'print the version of the service')
    .option('--debug', 'print the stack of an unexpected error (also LOG_LEVEL=debug)')
    .addHelpText(
      'after',
      '\nEvery command takes --json: its result as one JSON document on stdout; an error as\n' +
        '{"error":{"code","message"}} on stderr. Exit codes: 0 done, 1 refused or check failed,\n' +
        '2 usage, 3 configuration, 4 database unavailable or not migrated, 5 unexpected error.\n' +
        'See docs/cli.md.',
    );
  // Set before any subcommand exists: commander copies both settings into each one.
  program.exitOverride();
  // runCli prints every error itself, as one line or as JSON under --json.
  program.configureOutput({
    outputError: () => undefined,
    ...(json ? { writeErr: () => undefined } : {}),
  });

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

  addMerchantTermsCommands(merchants);

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
        const { publicDeposit } = lazy.deposits();
        const page = await services.deposits.listAfter(
          orm.em,
          operatorContextOf(services, opts.merchant ?? null),
          { status: 'FLAGGED' },
          { first: opts.limit ?? 20, after: opts.after ?? null },
        );
        const last = page.deposits[page.deposits.length - 1];
        print(
          !!opts.json,
          {
            deposits: page.deposits.map(publicDeposit),
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
      'Resolve a FLAGGED deposit: --settle converts it at the current rate (PENDING_FX), --return sends the NGN back to the payer (RETURNING; also retries a RETURN_FAILED one)',
    )
    .argument('<depositId>', 'deposit id (dep_...)')
    .option('--settle', 'move to PENDING_FX at the current rate')
    .option(
      '--return',
      'send the NGN back to the payer (RETURNING, then RETURNED once the bank confirms)',
    )
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
        print(
          !!opts.json,
          lazy.deposits().publicDeposit(deposit),
          `Deposit ${deposit.id} is ${deposit.status}.`,
        );
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
          lazy.deposits().publicDeposit(outcome.deposit),
          outcome.reversed
            ? `Reversal recorded: deposit ${outcome.deposit.id} is ${outcome.deposit.status}.`
            : `Deposit ${outcome.deposit.id} was already reversed (${outcome.deposit.status}).`,
        );
      }),
    );

  addSystemCommands(program);
  addReportCommands(program);
  addSanctionsCommands(program);
  return program;
}

/** `--version` alone (or with --json): answered before the commands are even built. */
function versionOnly(argv: string[]): boolean {
  const rest = argv.filter((arg) => arg !== '--json');
  return rest.length === 1 && (rest[0] === '--version' || rest[0] === '-V');
}

/** Runs one command line; resolves to the exit code (docs/cli.md), never rejects. */
export async function runCli(argv: string[]): Promise<number> {
  // Decided from the raw arguments: a usage error happens before commander has parsed options.
  const json = argv.includes('--json');
  const debug = argv.includes('--debug') || process.env.LOG_LEVEL === 'debug';
  if (versionOnly(argv)) {
    print(json, { version: VERSION }, VERSION);
    return 0;
  }
  try {
    await buildCli({ json }).parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version') return 0;
    // A command group without its subcommand: commander printed the group's help on stderr.
    if (code === 'commander.help' && !json) return EXIT.usage;
    if (error instanceof CliExit) return error.exitCode;
    return reportError(error, json, debug);
  }
}

if (require.main === module) {
  runCli(process.argv.slice(2)).then((code) => process.exit(code));
}
