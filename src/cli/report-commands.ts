import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { CliFailure, EXIT } from './cli-errors';
import { operatorContextOf, print, withServices } from './cli-support';
import { lazy } from './lazy-modules';

interface ReportOptions {
  merchant: string;
  from: string;
  to: string;
  out?: string;
  json?: boolean;
}

/**
 * `onramp reports deposits|ledger`: the merchant's CSV exports, the same files as
 * `GET /v1/reports/*.csv`, for the operator. Streamed from the database to stdout or `--out`,
 * in constant memory whatever the period.
 */
export function addReportCommands(program: Command): void {
  const reports = program
    .command('reports')
    .description("A merchant's reconciliation exports as CSV (RFC 4180), as the API serves them");
  for (const [name, what] of [
    ['deposits', 'deposits created in the period, oldest first'],
    ['ledger', "postings on the merchant's USD balances in the period"],
  ] as const) {
    reports
      .command(name)
      .description(`${what}: deposits.csv / ledger.csv`)
      .requiredOption('--merchant <id>', 'merchant id (mer_...)')
      .requiredOption('--from <date>', 'start: an Africa/Lagos date (2026-11-01) or a timestamp')
      .requiredOption('--to <date>', 'end, inclusive: a Lagos date or a timestamp')
      .option('--out <file>', 'write the CSV to this file (default: stdout)')
      .option('--json', 'with --out: print {"report","file","rows","bytes"}')
      .action(async (opts: ReportOptions) => {
        if (opts.json && !opts.out) {
          // stdout carries the CSV; a JSON result there would corrupt it.
          throw new CliFailure(
            'usage_error',
            '--json needs --out (stdout carries the CSV)',
            EXIT.usage,
          );
        }
        await withServices(async (orm, services) => {
          const range = lazy.reports().parseReportRange({ from: opts.from, to: opts.to });
          const em = orm.em.fork();
          await services.merchants.get(em, opts.merchant);
          const ctx = operatorContextOf(services, opts.merchant);
          const report = lazy.reports();
          const chunks =
            name === 'deposits'
              ? report.depositReport(em, ctx, range)
              : report.ledgerReport(em, ctx, range);
          let bytes = 0;
          let rows = 0;
          async function* counted() {
            for await (const chunk of chunks) {
              rows += chunk.rows;
              bytes += Buffer.byteLength(chunk.text);
              yield chunk.text;
            }
          }
          const out = opts.out ? createWriteStream(opts.out) : process.stdout;
          await pipeline(Readable.from(counted(), { objectMode: false }), out, {
            end: !!opts.out,
          });
          if (opts.out) {
            print(
              !!opts.json,
              { report: `${name}.csv`, file: opts.out, rows, bytes },
              `${name}.csv: ${rows} rows, ${bytes} bytes written to ${opts.out}`,
            );
          }
        });
      });
  }
}
