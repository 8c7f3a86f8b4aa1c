import { Client } from 'pg';

/** Reads what the benchmark's deposits became, straight from the database (after the run). */
export async function settleLatenciesMs(
  databaseUrl: string,
  referencePrefix: string,
): Promise<{ latencies: number[]; byStatus: Record<string, number> }> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const rows = (
      await client.query<{ status: string; ms: string | null }>(
        `select status, (extract(epoch from (settled_at - created_at)) * 1000)::text as ms
           from deposits where bank_reference like $1`,
        [`${referencePrefix}%`],
      )
    ).rows;
    const byStatus: Record<string, number> = {};
    for (const r of rows) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    return {
      latencies: rows.filter((r) => r.status === 'SETTLED').map((r) => Number(r.ms)),
      byStatus,
    };
  } finally {
    await client.end();
  }
}

/** Waits until no deposit with this reference prefix is still on its way (or the time is up). */
export async function untilSettledOrStuck(
  databaseUrl: string,
  referencePrefix: string,
  expected: number,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { byStatus } = await settleLatenciesMs(databaseUrl, referencePrefix);
    const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
    const moving = (byStatus.PENDING_FX ?? 0) + (byStatus.PENDING_WITHDRAWAL ?? 0);
    if (total >= expected && moving === 0) return;
    await new Promise((r) => setTimeout(r, 500));
  }
}

export interface DepositTiming {
  status: string;
  /** When the gateway inserted it (ms since the epoch, database clock). */
  createdMs: number;
  /** created to SETTLED; null while not SETTLED. */
  latencyMs: number | null;
}

/** Every deposit of this reference prefix with its arrival time, for splitting a phase by window. */
export async function depositTimings(
  databaseUrl: string,
  referencePrefix: string,
): Promise<DepositTiming[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ status: string; created: string; ms: string | null }>(
      `select status, (extract(epoch from created_at) * 1000)::text as created,
              (extract(epoch from (settled_at - created_at)) * 1000)::text as ms
         from deposits where bank_reference like $1`,
      [`${referencePrefix}%`],
    );
    return rows.map((r) => ({
      status: r.status,
      createdMs: Number(r.created),
      latencyMs: r.status === 'SETTLED' && r.ms !== null ? Number(r.ms) : null,
    }));
  } finally {
    await client.end();
  }
}
