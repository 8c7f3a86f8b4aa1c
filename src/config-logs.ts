import { z } from 'zod';
import { optionalBoolean } from './config-fields';

/** Log settings of the service processes (src/logger.ts), spread into `configSchema`. */
export const logConfigFields = {
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * true: each log line is written before the process goes on (one write per line; a log reader
   * that stops reading stops the process with it). Default: lines are written in the
   * background, in batches (src/logger.ts); only a process killed outright (SIGKILL, out of
   * memory) loses the last, and a stalled reader costs lines, not memory (LOG_BUFFER_MAX_BYTES).
   */
  LOG_SYNC: optionalBoolean.transform((value) => value ?? false),
  /**
   * With LOG_SYNC=false, how many bytes of log lines a process keeps waiting while standard
   * output is not taking them (a log reader that stopped, a full pipe); a line beyond that is
   * dropped and counted (`onramp_log_lines_dropped_total`). At least 64 KiB, so that a batch
   * and a long line always fit. docs/decisions.md (issue 39).
   */
  LOG_BUFFER_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .default(4 * 1024 * 1024),
};
