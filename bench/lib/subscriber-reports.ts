import type { SubscriberReport } from './ws-subscribers';
import type { RpcChild } from './ws-rpc';

/** What the subscriber processes saw, put together. */
export interface FanOut {
  latencies: number[];
  byStatus: Record<string, number[]>;
  missing: number;
  duplicates: number;
  outOfOrder: number;
  subscribers: number;
  errors: string[];
  closed: number;
  sample: string | null;
}

export async function collect(clients: RpcChild[], expected: number): Promise<FanOut> {
  const reports = await Promise.all(
    clients.map((c) => c.call<SubscriberReport>({ type: 'report' })),
  );
  const byStatus: Record<string, number[]> = {};
  for (const r of reports) {
    for (const [status, values] of Object.entries(r.latenciesByStatus)) {
      byStatus[status] = (byStatus[status] ?? []).concat(values);
    }
  }
  const distinct = reports.flatMap((r) => r.distinctPerSubscriber);
  return {
    latencies: Object.values(byStatus).flat(),
    byStatus,
    missing: distinct.reduce((sum, n) => sum + Math.max(0, expected - n), 0),
    duplicates: reports.reduce((s, r) => s + r.duplicates, 0),
    outOfOrder: reports.reduce((s, r) => s + r.outOfOrder, 0),
    subscribers: distinct.length,
    errors: reports.flatMap((r) => r.errors),
    closed: reports.reduce((s, r) => s + r.closed, 0),
    sample: reports.find((r) => r.sample)?.sample ?? null,
  };
}
