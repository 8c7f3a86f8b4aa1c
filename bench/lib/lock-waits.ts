import { Client } from 'pg';
import { pause } from './ws-api';

/**
 * Samples pg_stat_activity every 100 ms until stopped: the share of samples with a session
 * waiting on a lock, the mean number waiting, and the statement most often waiting.
 */
export function sampleLockWaits(databaseUrl: string) {
  const client = new Client({ connectionString: databaseUrl });
  let stopped = false;
  let samples = 0;
  let withWaits = 0;
  let waiting = 0;
  const statements = new Map<string, number>();
  const running = (async () => {
    await client.connect();
    while (!stopped) {
      const { rows } = await client.query<{ q: string }>(
        `select left(regexp_replace(query, '\\s+', ' ', 'g'), 70) as q from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`,
      );
      samples += 1;
      if (rows.length > 0) withWaits += 1;
      waiting += rows.length;
      for (const r of rows) statements.set(r.q, (statements.get(r.q) ?? 0) + 1);
      await pause(100);
    }
    await client.end();
  })();
  return {
    stop: async () => {
      stopped = true;
      await running.catch(() => undefined);
      const top = [...statements].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
      return {
        share: samples ? withWaits / samples : 0,
        mean: samples ? waiting / samples : 0,
        top,
      };
    },
  };
}
