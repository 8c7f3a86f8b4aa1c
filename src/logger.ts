import pino, { type DestinationStream, type Logger } from 'pino';
import { redactLogLine } from './logging/redact';
import { requestLogFields } from './logging/request-serializer';

/**
 * Structured JSON logs (one object a line); secrets and e-mail addresses never reach them.
 *
 * Redaction runs on the finished line (`hooks.streamWrite`), not on the logged objects: pino
 * hands `formatters.log` the caller's raw objects (an `Error` still unserialized, for both
 * `log.error({ err })` and `log.error(err)`), runs serializers (`err`, Fastify's `req`/`res`)
 * after it, takes the message of `log.error(err)` from `err.message` after `hooks.logMethod`,
 * and writes child bindings pre-serialized. The line is the one place all of that meets. See
 * `src/logging/redact.ts` for the rules. The caller's objects are never touched.
 *
 * `destination`: where lines go (default: stdout); tests pass an in-memory stream.
 */
export function createLogger(name: string, level: string, destination?: DestinationStream): Logger {
  // `req`: Fastify takes the logger's serializers over its own (src/logging/request-serializer.ts).
  const options = {
    name,
    level,
    hooks: { streamWrite: redactLogLine },
    serializers: { req: requestLogFields },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** Background logs are written once this many bytes are waiting (about ten request lines)... */
export const LOG_BATCH_BYTES = 4096;
/** ...or when this much time has passed, whichever comes first. */
export const LOG_FLUSH_MS = 100;

/**
 * Standard output for a service process's logs. `sync: false` (the default, LOG_SYNC): lines go
 * out in the background, in batches of about LOG_BATCH_BYTES, and at most LOG_FLUSH_MS after
 * they were logged when fewer are waiting: a write per few request lines cost a busy gateway
 * 30-50 us of CPU per deposit read, much of it in the kernel (bench/README.md, issue 23).
 * Buffered lines are written out when the process exits, on an error too; a process killed
 * outright (SIGKILL, out of memory) loses the last 100 ms of lines.
 */
export function stdoutLogs(sync: boolean): DestinationStream {
  if (sync) return pino.destination({ dest: 1, sync: true });
  return pino.destination({
    dest: 1,
    sync: false,
    minLength: LOG_BATCH_BYTES,
    periodicFlush: LOG_FLUSH_MS,
  });
}
