import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface PostgresProcess {
  url: string;
  adminUrl: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `pg-server.js` (compiled) detached and waits for its ready line. */
export function spawnEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  database: string;
  persistent: boolean;
  script?: string;
  timeoutMs?: number;
  settings?: Record<string, string>;
}): Promise<PostgresProcess> {
  const script = options.script ?? join(__dirname, 'pg-server.js');
  const child = spawn(
    process.execPath,
    [
      script,
      options.dataDir,
      String(options.port),
      options.database,
      String(options.persistent),
      ...(options.settings ? [JSON.stringify(options.settings)] : []),
    ],
    { detached: true, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`embedded PostgreSQL not ready in time: ${stderr}`)),
      options.timeoutMs ?? 60_000,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`embedded PostgreSQL exited (${code}): ${stderr.trim()}`));
    });
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      const ready = JSON.parse(line) as { url: string; adminUrl: string };
      resolve({
        ...ready,
        child,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}
