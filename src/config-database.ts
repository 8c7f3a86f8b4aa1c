import { z } from 'zod';
import { positiveInt } from './config-fields';

/** The database and how the processes wait for it at start (docs/cli.md, "Start-up"). */
export const databaseConfigFields = {
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  DB_POOL_MAX: positiveInt(10),
  /**
   * How long the gateway and the job runner wait at start for a database that does not answer
   * (they answer /livez 200 and /readyz 503 meanwhile), then exit 69. 0: wait for as long as it
   * takes, as an orchestrator expects.
   */
  DATABASE_WAIT_SECONDS: z.coerce.number().int().min(0).default(0),
};
