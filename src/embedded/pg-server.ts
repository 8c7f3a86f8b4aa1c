import { startEmbeddedPostgres } from './postgres';

/**
 * Runs embedded PostgreSQL as a helper process in its own process group, so a terminal's
 * Ctrl-C reaches the supervisor (which stops the services first) and not the database.
 * Prints one JSON line `{"url","adminUrl"}` when ready; stops on SIGTERM/SIGINT or when the
 * parent closes stdin (the parent died).
 *
 * argv: <dataDir> <port> <database> <persistent: true|false> [settings as a JSON object]
 */
async function main(): Promise<void> {
  const [dataDir, port, database, persistent, settings] = process.argv.slice(2);
  const postgres = await startEmbeddedPostgres({
    dataDir,
    port: Number(port),
    database,
    persistent: persistent !== 'false',
    settings: settings ? (JSON.parse(settings) as Record<string, string>) : undefined,
  });
  process.stdout.write(`${JSON.stringify({ url: postgres.url, adminUrl: postgres.adminUrl })}\n`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await postgres.stop().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  process.stdin.on('end', () => void stop());
  process.stdin.on('error', () => void stop());
  process.stdin.resume();
}

main().catch((error) => {
  process.stderr.write(
    `embedded PostgreSQL failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
