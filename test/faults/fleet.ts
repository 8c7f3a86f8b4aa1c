// The system a fault run breaks: a PostgreSQL it may restart, the local chains, several
// gateways and job runners as separate OS processes, each of which may be SIGKILLed and
// started again (a new gateway listens on a new port, as behind a load balancer).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gatewayEnvironment } from '../../src/crypto/process-secrets';
import { startTestChains, type TestChains } from '../support/chains';
import { freePort } from '../support/free-port';
import {
  baseEnv,
  onrampCli,
  startGateway,
  startRunner,
  type Gateway,
  type RunningProcess,
} from '../support/stack';

interface PostgresProcess {
  url: string;
  stop(): Promise<void>;
}

/** An embedded PostgreSQL on a data directory that survives its restarts. */
export class RestartablePostgres {
  private process: PostgresProcess | undefined;
  private constructor(
    private readonly dataDir: string,
    private readonly port: number,
  ) {}

  static async start(): Promise<RestartablePostgres> {
    const postgres = new RestartablePostgres(
      mkdtempSync(join(tmpdir(), 'onramp-faults-pg-')),
      await freePort(),
    );
    await postgres.up();
    await onrampCli(postgres.url, ['db', 'migrate']);
    return postgres;
  }

  get url(): string {
    if (!this.process) throw new Error('PostgreSQL is down');
    return this.process.url;
  }

  async up(): Promise<void> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { spawnEmbeddedPostgres } = require(
      join(__dirname, '..', '..', 'dist', 'src', 'embedded', 'pg-process.js'),
    );
    this.process = await spawnEmbeddedPostgres({
      dataDir: this.dataDir,
      port: this.port,
      database: 'onramp',
      persistent: true,
    });
  }

  /** A fast shutdown: every connection is cut, as at a failover or a crash of the server. */
  async down(): Promise<void> {
    await this.process?.stop();
  }

  async destroy(): Promise<void> {
    await this.down();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export interface FleetOptions {
  gateways: number;
  runners: number;
  env: Record<string, string>;
}

/** Every process of the run, replaced in place when it is killed and started again. */
export class Fleet {
  readonly gateways: Array<Gateway | undefined> = [];
  readonly runners: Array<RunningProcess | undefined> = [];
  private constructor(
    readonly postgres: RestartablePostgres,
    readonly chains: TestChains,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  static async start(options: FleetOptions): Promise<Fleet> {
    const [postgres, chains] = await Promise.all([RestartablePostgres.start(), startTestChains()]);
    const fleet = new Fleet(
      postgres,
      chains,
      baseEnv(postgres.url, { ...options.env, ...chains.env }),
    );
    try {
      for (let i = 0; i < options.gateways; i += 1) await fleet.startGateway(i);
      for (let i = 0; i < options.runners; i += 1) await fleet.startRunner(i);
    } catch (error) {
      await fleet.stop();
      throw error;
    }
    return fleet;
  }

  get databaseUrl(): string {
    return this.postgres.url;
  }

  /** The gateways answering now (a killed one is gone until it is started again). */
  liveGatewayUrls(): string[] {
    return this.gateways.filter((g): g is Gateway => g !== undefined).map((g) => g.url);
  }

  async startGateway(index: number): Promise<void> {
    // As `npm start` runs them: gateways get the hot wallet's address, only runners its key.
    this.gateways[index] = await startGateway(gatewayEnvironment(this.env));
  }

  async startRunner(index: number): Promise<void> {
    this.runners[index] = await startRunner(this.env);
  }

  /** SIGKILL: no shutdown hook runs, whatever the process was doing is cut where it was. */
  async kill(role: 'gateway' | 'runner', index: number): Promise<void> {
    const list = role === 'gateway' ? this.gateways : this.runners;
    const process = list[index];
    list[index] = undefined;
    await process?.stop('SIGKILL');
  }

  /** Starts a killed process again; a start that fails (the database is down) is retried. */
  async restart(role: 'gateway' | 'runner', index: number, deadline: number): Promise<void> {
    for (;;) {
      try {
        if (role === 'gateway') await this.startGateway(index);
        else await this.startRunner(index);
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  /** Logs of every process still running (for a failure's report). */
  logTail(lines = 40): string {
    const all = [...this.gateways, ...this.runners].filter(
      (p): p is RunningProcess => p !== undefined,
    );
    return all.map((p, i) => `--- process ${i}\n${p.logs.slice(-lines).join('\n')}`).join('\n');
  }

  async stop(): Promise<void> {
    await Promise.all(
      [...this.gateways, ...this.runners].map((p) => p?.stop().catch(() => undefined)),
    );
    await this.chains.stop().catch(() => undefined);
    await this.postgres.destroy().catch(() => undefined);
  }
}
