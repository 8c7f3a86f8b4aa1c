import { Client } from 'pg';

/**
 * What the payout pipeline is waiting on while a phase runs, sampled from the database every
 * `everyMs`: where the phase's deposits and payouts stand (which stage holds the queue; payouts
 * have no job per payout since issue 19, so the payout statuses are the queue), and what every
 * other session is doing
 * (`pg_stat_activity`: running, idle in a transaction, or waiting on a lock, and on which
 * statement); and, from Agenda's own notices, how long each job ran. Read-only; one short
 * query per sample.
 */
export interface PayoutSampler {
  stop(): Promise<{
    timeline: string[];
    activity: Array<[string, number]>;
    samples: number;
    /** Run time (ms) of each Agenda job that completed during the phase, by job name. */
    jobsMs: Record<string, number[]>;
  }>;
}

interface Sample {
  t: number;
  deposits: Record<string, number>;
  payouts: Record<string, number>;
}

export async function samplePayouts(
  databaseUrl: string,
  referencePrefix: string,
  everyMs = 250,
): Promise<PayoutSampler> {
  const client = new Client({ connectionString: databaseUrl, application_name: 'bench-sampler' });
  await client.connect();
  const started = Date.now();
  const samples: Sample[] = [];
  const activity = new Map<string, number>();
  // Agenda announces every job's end with its run time: how long a payout round or a sweep
  // took, apart from how long it waited in the queue.
  const jobsMs: Record<string, number[]> = {};
  client.on('notification', (message) => {
    try {
      const event = JSON.parse(message.payload ?? '') as {
        type?: string;
        jobName?: string;
        duration?: number;
      };
      if (event.type !== 'complete' || !event.jobName || typeof event.duration !== 'number') return;
      (jobsMs[event.jobName] ??= []).push(event.duration);
    } catch {
      // not one of Agenda's
    }
  });
  await client.query('listen "agenda:jobs:state"');
  let running = true;
  const loop = (async () => {
    while (running) {
      const tick = Date.now();
      const { rows } = await client.query<{ kind: string; key: string; n: string }>(
        `select 'deposit' as kind, d.status as key, count(*)::text as n
           from deposits d where d.bank_reference like $1 group by d.status
         union all
         select 'payout', p.status, count(*)::text
           from payouts p join deposits d on d.id = p.deposit_id
          where d.bank_reference like $1 group by p.status
         union all
         select 'activity',
                concat_ws(' | ', a.state, a.wait_event_type || ':' || a.wait_event,
                          left(regexp_replace(a.query, '\\s+', ' ', 'g'), 70)),
                count(*)::text
           from pg_stat_activity a
          where a.backend_type = 'client backend' and a.pid <> pg_backend_pid()
            and a.state <> 'idle'
          group by 2`,
        [`${referencePrefix}%`],
      );
      const sample: Sample = { t: tick - started, deposits: {}, payouts: {} };
      for (const r of rows) {
        if (r.kind === 'deposit') sample.deposits[r.key] = Number(r.n);
        else if (r.kind === 'payout') sample.payouts[r.key] = Number(r.n);
        else activity.set(r.key, (activity.get(r.key) ?? 0) + Number(r.n));
      }
      samples.push(sample);
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, everyMs - (Date.now() - tick))),
      );
    }
  })();
  return {
    async stop() {
      running = false;
      await loop.catch(() => undefined);
      await client.end().catch(() => undefined);
      // One line every ~2.5 s: the queue at each stage.
      const timeline = samples
        .filter((s, i) => i % Math.max(1, Math.round(2500 / everyMs)) === 0)
        .map((s) => {
          const d = s.deposits;
          const p = s.payouts;
          return (
            `t=${(s.t / 1000).toFixed(1).padStart(5)}s  deposits PENDING_FX ${d.PENDING_FX ?? 0}, ` +
            `PENDING_WITHDRAWAL ${d.PENDING_WITHDRAWAL ?? 0}, SETTLED ${d.SETTLED ?? 0}; payouts ` +
            `PENDING ${p.PENDING ?? 0}, SIGNED ${p.SIGNED ?? 0}, CONFIRMED ${p.CONFIRMED ?? 0}`
          );
        });
      // Sessions per sample in each state (sum over samples / samples), most frequent first.
      const perSample = [...activity]
        .map(([key, n]): [string, number] => [key, Math.round((n / samples.length) * 100) / 100])
        .sort((a, b) => b[1] - a[1]);
      return { timeline, activity: perSample, samples: samples.length, jobsMs };
    },
  };
}
