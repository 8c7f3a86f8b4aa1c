import type { Command } from 'commander';
import type { ListInForce, ListSubmission } from '../sanctions';
import { CliFailure } from './cli-errors';
import { cliActor, print, withServices } from './cli-support';
import { lazy } from './lazy-modules';

/** What `status` and `update` print under --json. */
function listJson(list: ListInForce | null): object {
  if (!list) return { in_force: false };
  return {
    in_force: true,
    list_date: list.listDate,
    address_count: list.addressCount,
    origin: list.origin,
    description: list.description,
    content_sha256: list.contentSha256,
    installed_at: list.installedAt.toISOString(),
    installed_by: list.installedBy,
  };
}

function listLine(list: ListInForce | null): string {
  if (!list) return 'No sanctions list is in force: nothing is screened.';
  return (
    `Sanctions list of ${list.listDate} in force: ${list.addressCount} addresses ` +
    `(${list.origin === 'operator' ? 'an update' : 'at start'}: ${list.description}; ` +
    `installed ${list.installedAt.toISOString()} by ${list.installedBy}).`
  );
}

/** Reads and checks the file before any database work: a refused file changes nothing. */
async function readList(file: string): Promise<ListSubmission> {
  const { SanctionsListError } = lazy.sanctionsList();
  try {
    return await lazy.sanctions().readSanctionsFile(file);
  } catch (error) {
    if (!(error instanceof SanctionsListError)) throw error;
    throw new CliFailure(
      'invalid_sanctions_list',
      `${file} refused, the list in force is unchanged: ${error.message}`,
    );
  }
}

/** `onramp sanctions status|update` (docs/cli.md, "Sanctions list"). */
export function addSanctionsCommands(program: Command): void {
  const sanctions = program
    .command('sanctions')
    .description('The sanctions list every destination address is screened against');
  sanctions
    .command('status')
    .description('The list in force: its date, size and where it came from')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) =>
      withServices(async (orm, services) => {
        const list = await services.sanctions.status(orm.em.fork());
        print(!!opts.json, listJson(list), listLine(list));
      }),
    );
  sanctions
    .command('update')
    .description(
      'Replace the list in force with FILE: one EVM address per line (any letter case), blank lines and # comments ignored, an optional "# date: YYYY-MM-DD" line; any bad line refuses the whole file',
    )
    .argument('<file>', 'the list file (at most 100,000 lines and 8 MiB)')
    .option('--json', 'print JSON')
    .action(async (file: string, opts: { json?: boolean }) => {
      const submission = await readList(file);
      await withServices(async (orm, services) => {
        const list = await services.sanctions.replace(orm.em, cliActor(), submission);
        print(!!opts.json, listJson(list), listLine(list));
      });
    });
}
