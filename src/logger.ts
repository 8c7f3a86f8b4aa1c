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

/** A process's log output, and how many lines it had to drop. */
export interface LogOutput {
  readonly stream: DestinationStream;
  /** Lines dropped since start-up because standard output was not taking them (issue 39). */
  droppedLines(): number;
  /**
   * Once the output has caught up after dropping lines, says so through `log`: whoever reads
   * the log sees where lines are missing and how many, not only the metric.
   */
  reportDropsTo(log: Logger): void;
}

/**
 * Standard output for a service process's logs. `sync: false` (the default, LOG_SYNC): lines go
 * out in the background, in batches of about LOG_BATCH_BYTES, and at most LOG_FLUSH_MS after
 * they were logged when fewer are waiting: a write per few request lines cost a busy gateway
 * 30-50 us of CPU per deposit read, much of it in the kernel (bench/README.md, issue 23).
 * Buffered lines are written out when the process exits, on an error too; a process killed
 * outright (SIGKILL, out of memory) loses the last 100 ms of lines.
 *
 * While standard output does not drain (a log reader that stopped reading, a full pipe), at
 * most `maxBufferBytes` of lines wait; a line that would go beyond is dropped and counted.
 * Unbounded, a stalled reader grew a process by about a byte of heap per byte logged until its
 * heap cap stopped it (docs/decisions.md, issue 39). `sync: true` holds nothing: the process waits at
 * each write until the reader takes it.
 */
export function stdoutLogs(options: { sync: boolean; maxBufferBytes: number }): LogOutput {
  if (options.sync) {
    const stream = pino.destination({ dest: 1, sync: true });
    return { stream, droppedLines: () => 0, reportDropsTo: () => undefined };
  }
  const stream = pino.destination({
    dest: 1,
    sync: false,
    minLength: LOG_BATCH_BYTES,
    periodicFlush: LOG_FLUSH_MS,
    maxLength: options.maxBufferBytes,
  });
  let dropped = 0;
  // pino writes one line per write, so each dropped write is one line.
  stream.on('drop', () => {
    dropped += 1;
  });
  return {
    stream,
    droppedLines: () => dropped,
    reportDropsTo(log) {
      let reported = 0;
      // `drain`: everything that was waiting has been written.
      stream.on('drain', () => {
        if (dropped === reported) return;
        const now = dropped - reported;
        reported = dropped;
        log.warn(
          { dropped_lines: now, dropped_lines_total: dropped },
          `${now} log lines were dropped: standard output was not taking them`,
        );
      });
    },
  };
}

/** The logger of a service process (gateway, job runner) on standard output. */
export function serviceLogger(
  name: string,
  config: { LOG_LEVEL: string; LOG_SYNC: boolean; LOG_BUFFER_MAX_BYTES: number },
): { log: Logger; output: LogOutput } {
  const output = stdoutLogs({ sync: config.LOG_SYNC, maxBufferBytes: config.LOG_BUFFER_MAX_BYTES });
  const log = createLogger(name, config.LOG_LEVEL, output.stream);
  output.reportDropsTo(log);
  return { log, output };
}
