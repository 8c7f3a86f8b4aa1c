import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Services } from '../src/container';
import type { WebhookDispatcher } from '../src/webhooks';
import type { SettlementDrain } from '../src/deposits';

/** Asks for a job to run now; one pending run per `uniqueKey` (a later ask reschedules it). */
export type Enqueue = (
  name: string,
  data: Record<string, string>,
  uniqueKey: string,
) => Promise<void>;

/** What a job handler gets: the ORM to fork a fresh EntityManager from, services, a logger. */
export interface JobDeps {
  orm: MikroORM;
  services: Services;
  log: Logger;
  enqueue: Enqueue;
  /** This runner's webhook attempts (claimed from the database, sent in the background). */
  webhooks: WebhookDispatcher;
  /** This runner's settlement loop (woken by NOTIFY and by the settle-deposits sweep). */
  settlement: SettlementDrain;
}

/** One file per job exports one of these; the runner defines and schedules them. */
export interface JobDefinition {
  name: string;
  /** Recurring jobs: interval in milliseconds, from configuration. */
  everyMs?: (deps: JobDeps) => number;
  /** Jobs that only make sense in some deployments (sandbox-only features). */
  enabled?: (deps: JobDeps) => boolean;
  /** Agenda options for this job. */
  concurrency?: number;
  /** How long a run stays locked to its runner if that runner dies (default 30 s). */
  lockLifetimeMs?: number;
  /** One-off trigger jobs are removed once they succeed, so the job store does not grow. */
  removeOnComplete?: boolean;
  run: (deps: JobDeps, data: unknown) => Promise<void>;
}
