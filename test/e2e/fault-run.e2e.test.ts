import { writeFileSync } from 'node:fs';
import { reportTable, runFaults, type FaultRunOptions } from '../faults/fault-run';
import { testSeed } from '../support/seeded-random';

/**
 * The fault run (issue 35). In `npm test` its short version: 2 gateways and 2 job runners on a
 * PostgreSQL of its own and the local chains, 4 transfers/s (balance and on-chain, all three
 * chains) and a withdrawal every 2 s for a minute, while a seeded schedule SIGKILLs a process
 * every 15-25 s, restarts PostgreSQL once, stops one chain's node for 10 s and reorganises a
 * chain. `npm run faults` (FAULT_RUN=full) is the long one: 3 gateways, 2 runners, 20/s for 3
 * minutes. `SEED=<n>` replays a run's schedule and traffic; the seed is printed.
 */
const FULL = process.env.FAULT_RUN === 'full';

const OPTIONS: Omit<FaultRunOptions, 'seed'> = FULL
  ? {
      gateways: 3,
      runners: 2,
      loadMs: 180_000,
      depositsPerSecond: 20,
      withdrawalsPerSecond: 1,
      killEveryMs: [15_000, 30_000],
      chainStopMs: 20_000,
      reorgs: 2,
      reorgDepth: [2, 4],
      drainMs: 300_000,
    }
  : {
      gateways: 2,
      runners: 2,
      loadMs: 60_000,
      depositsPerSecond: 4,
      withdrawalsPerSecond: 0.5,
      killEveryMs: [15_000, 25_000],
      chainStopMs: 10_000,
      reorgs: 1,
      reorgDepth: [2, 3],
      drainMs: 150_000,
    };

describe(`fault run (${FULL ? 'full' : 'short'})`, () => {
  it('loses nothing, pays nothing twice, delivers every event, and the ledger balances', async () => {
    const seed = testSeed();
    const lines: string[] = [];
    const report = await runFaults({
      ...OPTIONS,
      seed,
      log: (line) => {
        lines.push(line);
        if (FULL) process.stderr.write(`${line}\n`);
      },
    });
    const table = reportTable(report);
    if (process.env.FAULT_REPORT_FILE) {
      writeFileSync(process.env.FAULT_REPORT_FILE, `${JSON.stringify({ ...report, table })}\n`);
    }
    process.stderr.write(`${table}\n`);
    if (!report.ok) process.stderr.write(`\n${lines.join('\n')}\n\n${report.logTail ?? ''}\n`);
    expect({ seed, failed: report.checks.filter((c) => !c.ok) }).toEqual({ seed, failed: [] });
    expect(report.faults.filter((f) => f.outcome.startsWith('injection failed'))).toEqual([]);
  }, 900_000);
});
