import type { Db } from 'mongodb';

export type JobStoreState = 'ok' | 'down';

/** A job store other than the database, as the runner's `/health` reports it. */
export interface JobStoreHealth {
  /** The field of the health report (`"mongodb": "ok"`). */
  readonly field: 'mongodb';
  /** What the 503's message calls it. */
  readonly label: string;
  check(): Promise<JobStoreState>;
}

/**
 * MongoDB's state when Agenda keeps its jobs there (AGENDA_MONGODB_URL): without it the runner
 * takes no sweep, no scheduled job, no retry, even while PostgreSQL answers, so `/health` says
 * so. The runner serves `/health` before Agenda connects; until `attach` the store is reported
 * down (not connected yet), then each check is a `ping` on Agenda's own connection.
 */
export class MongoJobStoreHealth implements JobStoreHealth {
  readonly field = 'mongodb';
  readonly label = 'MongoDB (the job store)';
  private db: Db | undefined;

  constructor(private readonly timeoutMs = 2_000) {}

  attach(db: Db): void {
    this.db = db;
  }

  async check(): Promise<JobStoreState> {
    if (!this.db) return 'down';
    // The driver waits for a server up to its selection timeout (30 s by default): a probe
    // must answer sooner, so it races a timer and leaves the ping to fail on its own.
    const ping = this.db.command({ ping: 1 });
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('ping timed out')), this.timeoutMs).unref(),
    );
    try {
      await Promise.race([ping, timeout]);
      return 'ok';
    } catch {
      ping.catch(() => undefined);
      return 'down';
    }
  }
}
