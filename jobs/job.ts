import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Services } from '../src/services';

/** What a job handler gets: the ORM to fork a fresh EntityManager from, services, a logger. */
export interface JobDeps {
  orm: MikroORM;
  services: Services;
  log: Logger;
}

/** One file per job exports one of these; the runner defines and schedules them. */
export interface JobDefinition {
  name: string;
  /** Recurring jobs: interval in milliseconds, from configuration. */
  everyMs?: (deps: JobDeps) => number;
  run: (deps: JobDeps, data: unknown) => Promise<void>;
}
