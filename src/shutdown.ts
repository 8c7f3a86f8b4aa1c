import type { Logger } from 'pino';

/**
 * Graceful shutdown on SIGTERM or SIGINT: `drain` stops taking new work and lets what is in
 * flight finish (requests, jobs, webhook attempts), then the process exits 0. A drain that
 * outlasts `deadlineMs` is cut short with exit code 1: whatever it left is repaired by the
 * sweeps of the processes that remain (the database is the source of truth).
 */
export function exitGracefullyOnSignals(
  log: Logger,
  what: string,
  deadlineMs: number,
  drain: () => Promise<void>,
): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, event: 'stopping' }, `${what} stopping`);
    const deadline = setTimeout(() => {
      log.error({ deadlineMs }, `${what} did not finish in time; exiting anyway`);
      process.exit(1);
    }, deadlineMs);
    deadline.unref();
    try {
      await drain();
      log.info({ event: 'stopped' }, `${what} stopped`);
      process.exit(0);
    } catch (error) {
      log.error({ err: error }, `${what} failed to stop cleanly`);
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
