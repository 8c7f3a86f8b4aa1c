import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The project root: two levels up from test/support.
const ROOT = join(__dirname, '..', '..');

/** `npm start` (dist/src/cli/start.js) running in a project copy of its own. */
export interface Supervisor {
  child: ChildProcess;
  /** The copy's `.data/` (logs in `logs/`, the sandbox merchant in `sandbox-merchant.json`). */
  dataDir: string;
  /** Everything the supervisor printed on stdout and stderr so far. */
  output(): string;
  /** Ctrl-C: the supervisor stops its processes in order, then exits. */
  stop(): Promise<void>;
}

/**
 * `npm start` keeps its state under `<project>/.data`, found from where dist/ lies
 * (src/embedded/paths.ts). Each test gets a project of its own: a copy of the built dist/
 * (and the contract artifacts, package.json) beside a link to node_modules, so its logs and
 * credentials never mix with a developer's `.data/` or another test's.
 */
function projectCopy(): string {
  const root = mkdtempSync(join(tmpdir(), 'onramp-start-'));
  cpSync(join(ROOT, 'dist'), join(root, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(root, 'package.json'));
  const artifacts = join(ROOT, 'contracts', 'artifacts');
  if (existsSync(artifacts)) {
    cpSync(artifacts, join(root, 'contracts', 'artifacts'), { recursive: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  return root;
}

/**
 * Starts `npm start`'s supervisor with `env` and resolves once it printed "Press Ctrl-C to
 * stop." (both processes up). Its output is read as it comes, as a terminal would.
 */
export async function startSupervisor(env: NodeJS.ProcessEnv): Promise<Supervisor> {
  const root = projectCopy();
  const child = spawn(process.execPath, [join(root, 'dist', 'src', 'cli', 'start.js')], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    await exited;
    rmSync(root, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start not up:\n${text}`)), 90_000);
      const check = () => {
        if (!text.includes('Press Ctrl-C to stop.')) return;
        clearTimeout(timer);
        resolve();
      };
      child.stdout!.on('data', check);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`npm start exited with ${code}:\n${text}`));
      });
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { child, dataDir: join(root, '.data'), output: () => text, stop };
}

/** A value the supervisor printed in its banner (`  REST       http://... `), by label. */
export function bannerValue(output: string, label: string): string {
  const match = new RegExp(`^  ${label}\\s+(\\S+)`, 'm').exec(output);
  if (!match) throw new Error(`no "${label}" in the npm start banner:\n${output}`);
  return match[1];
}
