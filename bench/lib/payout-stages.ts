import { Client } from 'pg';
import type { Chain } from '../../src/domain/chains';
import type { TestChains } from '../../test/support/chains';
import { percentile, round } from './stats';

interface StageRow {
  chain: Chain;
  block: string | null;
  transactions: string;
  deposit_created: string;
  payout_created: string;
  signed: string | null;
  broadcast: string | null;
  confirmed: string | null;
  settled: string | null;
}

/**
 * Where a phase's deposit-to-SETTLED time went, stage by stage, from the timestamps the
 * service records (ms since the epoch, database clock) and the mining block's timestamp
 * (whole seconds on anvil, so "broadcast to mined" and "mined to confirmed" are +-1 s each;
 * their sum is exact). Lines of text for the benchmark's output and the notes.
 */
export async function payoutStages(
  databaseUrl: string,
  chains: TestChains,
  referencePrefix: string,
): Promise<string[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  let rows: StageRow[];
  try {
    const epoch = (column: string) => `(extract(epoch from ${column}) * 1000)::text`;
    rows = (
      await client.query<StageRow>(
        `select p.chain, p.block_number::text as block,
                (select count(*) from payout_transactions t where t.payout_id = p.id)::text as transactions,
                ${epoch('d.created_at')} as deposit_created, ${epoch('p.created_at')} as payout_created,
                ${epoch('p.signed_at')} as signed, ${epoch('p.broadcast_at')} as broadcast,
                ${epoch('p.confirmed_at')} as confirmed, ${epoch('d.settled_at')} as settled
           from deposits d join payouts p on p.deposit_id = d.id
          where d.bank_reference like $1`,
        [`${referencePrefix}%`],
      )
    ).rows;
  } finally {
    await client.end();
  }
  // Mining time of every block a payout landed in, per chain.
  const minedAt = new Map<string, number>();
  for (const row of rows) {
    const key = `${row.chain}:${row.block}`;
    if (row.block === null || minedAt.has(key)) continue;
    const block = await chains.publicClient(row.chain).getBlock({ blockNumber: BigInt(row.block) });
    minedAt.set(key, Number(block.timestamp) * 1000);
  }
  const stages: Array<[string, (r: StageRow) => [string | number | null, string | number | null]]> =
    [
      [
        'deposit created -> payout created (settlement, FX)',
        (r) => [r.deposit_created, r.payout_created],
      ],
      ['payout created -> signed (signing round)', (r) => [r.payout_created, r.signed]],
      ['signed -> broadcast recorded', (r) => [r.signed, r.broadcast]],
      [
        'broadcast -> mined (block time, 1 s steps)',
        (r) => [r.broadcast, minedAt.get(`${r.chain}:${r.block}`) ?? null],
      ],
      [
        'mined -> confirmed (sweep, receipt)',
        (r) => [minedAt.get(`${r.chain}:${r.block}`) ?? null, r.confirmed],
      ],
      ['broadcast -> confirmed', (r) => [r.broadcast, r.confirmed]],
      ['confirmed -> deposit SETTLED', (r) => [r.confirmed, r.settled]],
      ['deposit created -> SETTLED', (r) => [r.deposit_created, r.settled]],
    ];
  const lines = [`${rows.length} payouts; stage p50 / p90 / p99 ms`];
  for (const [name, span] of stages) {
    const values = rows.flatMap((r) => {
      const [from, to] = span(r);
      return from === null || to === null ? [] : [Number(to) - Number(from)];
    });
    const [p50, p90, p99] = [50, 90, 99].map((p) => round(percentile(values, p)));
    lines.push(`  ${name.padEnd(56)} ${p50} / ${p90} / ${p99} (${values.length})`);
  }
  const blocks = new Map<string, number>();
  for (const r of rows)
    if (r.block)
      blocks.set(`${r.chain}:${r.block}`, (blocks.get(`${r.chain}:${r.block}`) ?? 0) + 1);
  const replaced = rows.filter((r) => Number(r.transactions) > 1).length;
  lines.push(
    `  ${blocks.size} blocks held them (at most ${Math.max(0, ...blocks.values())} in one); ` +
      `${replaced} payouts had more than one transaction (fee bumps)`,
  );
  return lines;
}
