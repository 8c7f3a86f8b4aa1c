import type { Command } from 'commander';
import { CliError, CliExit } from './cli-errors';
import {
  cliActor,
  cliConfig,
  databaseUrlOf,
  parseLimit,
  parseOnOff,
  print,
  withServices,
} from './cli-support';
import type { MigrationStatus } from '../db/migration-status';
import { lazy } from './lazy-modules';

/**
 * The operator's deployment-wide commands: sandbox switches, operator tokens, treasury, audit
 * log, migrations, secrets at rest and the ledger check.
 */
export function addSystemCommands(program: Command): void {
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
    // Without --json the same report, indented: it is read by people and parsed by scripts.
    .option('--json', 'print the report as one line of JSON')
    .action(async (opts: { json?: boolean }) =>
      withServices(async (orm, services) => {
        const report = await services.treasury.report(orm.em.fork());
        print(!!opts.json, report, JSON.stringify(report, null, 2));
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

  const db = program.command('db').description('Database maintenance');
  db.command('status')
    .description(
      'Migrations applied (with when), pending (the gateway and the runner refuse to start until `db migrate` applies them) and unknown to this version',
    )
    .option(
      '--json',
      'print {"applied":[{"name","executed_at"}],"pending":[names],"unknown":[names]}',
    )
    .action(async (opts: { json?: boolean }) => {
      const status = await lazy.migrationStatus().migrationStatus(databaseUrlOf(cliConfig()));
      print(
        !!opts.json,
        {
          applied: status.applied.map((m) => ({
            name: m.name,
            executed_at: m.executedAt.toISOString(),
          })),
          pending: status.pending,
          unknown: status.unknown,
        },
        migrationStatusText(status),
      );
    });
  db.command('migrate')
    .description('Apply pending migrations (creates the database if it does not exist)')
    .option('--json', 'print {"applied":[names]}')
    .action(async (opts: { json?: boolean }) =>
      withServices(
        async (orm) => {
          const applied = (await orm.getMigrator().up()).map((migration) => migration.name);
          print(
            !!opts.json,
            { applied },
            applied.length === 0
              ? 'The database is up to date.'
              : `Applied ${applied.length} migration(s):\n${applied.map((n) => `  ${n}`).join('\n')}`,
          );
        },
        { createDatabase: true },
      ),
    );

  program
    .command('secrets')
    .description(
      'Secrets stored at rest (webhook secrets, idempotent responses, onramp customer records)',
    )
    .command('reencrypt')
    .description(
      'Seal every stored secret under the current ENCRYPTION_KEY (after a rotation, keep the old key in ENCRYPTION_KEY_PREVIOUS until this has run)',
    )
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) =>
      withServices(async (orm, services) => {
        const report = await lazy
          .reencrypt()
          .reencryptAll(orm.em.fork(), services.encryption.box, services.webhookEndpoints);
        print(
          !!opts.json,
          { ...report },
          `Sealed under key ${report.key_id}: ${report.webhook_endpoints} webhook endpoint(s), ` +
            `${report.idempotency_responses} idempotent response(s), ` +
            `${report.onramp_customers} onramp customer record(s) rewritten.`,
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
    .option('--json', 'print the report as one line of JSON')
    .action(async (opts: { json?: boolean }) =>
      withServices(async (orm) => {
        const { checkLedger, LEDGER_CHECK_NAMES } = lazy.reconciliation();
        const connection = orm.em.getConnection();
        const violations = await checkLedger((sql, params) => connection.execute(sql, params));
        const report = {
          ok: violations.length === 0,
          checked: LEDGER_CHECK_NAMES,
          violations,
        };
        // A failed check is a result, not an error: the report on stdout, then exit code 1.
        print(!!opts.json, report, JSON.stringify(report, null, 2));
        if (!report.ok) throw new CliExit(1);
      }),
    );
}

/** `db status` for people: one line a migration, pending ones last, where they would run. */
function migrationStatusText(status: MigrationStatus): string {
  const lines = [`Applied: ${status.applied.length}`];
  for (const m of status.applied) lines.push(`  ${m.executedAt.toISOString()}  ${m.name}`);
  lines.push(`Pending: ${status.pending.length === 0 ? 'none' : status.pending.length}`);
  for (const name of status.pending) lines.push(`  ${name}   (run \`onramp db migrate\`)`);
  if (status.unknown.length > 0) {
    lines.push(`Unknown to this version (a newer one applied them): ${status.unknown.length}`);
    for (const name of status.unknown) lines.push(`  ${name}`);
  }
  return lines.join('\n');
}
