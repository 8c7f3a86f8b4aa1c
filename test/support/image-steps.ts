import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { basename, join, relative } from 'node:path';
import { envPairs, type Instruction, type Stage } from './dockerfile';

/** The repository: the image's build context, and the tree `npm ci` installed from the lock. */
const ROOT = join(__dirname, '..', '..');

export interface BuiltStage {
  /** The scratch folder standing for the stage's WORKDIR. */
  dir: string;
  workdir: string;
  env: Record<string, string>;
  cmd?: string[];
  healthcheck?: string[];
}

/**
 * Replays a Dockerfile's stages in `scratch`, one folder per stage standing for its WORKDIR:
 * COPY from the build context (minus .dockerignore) or from an earlier stage, RUN in the folder
 * with the stage's ENV. Only `npm ci` is not run as written: it is reproduced from the lock file
 * the stage copied, honouring its `--omit` flags package by package, by hard-linking each
 * package the real install would place from this checkout's node_modules (installed by `npm ci`
 * from the same lock; the test checks the lock is the same). A real install takes minutes here
 * and fetches from the registry; what it would place is what the lock says, and the flags are
 * what broke the image before (issue 37: `--omit=optional` dropped esbuild's binary).
 * `npm cache clean` is skipped: it would empty this machine's cache, not the image's.
 */
export function replayStages(stages: Stage[], scratch: string): Map<string, BuiltStage> {
  const built = new Map<string, BuiltStage>();
  const ignored = dockerIgnore();
  for (const stage of stages) {
    const dir = join(scratch, stage.name);
    mkdirSync(dir, { recursive: true });
    const state: BuiltStage = { dir, workdir: '/', env: {} };
    for (const instruction of stage.instructions) {
      step(instruction, state, built, ignored);
    }
    built.set(stage.name, state);
  }
  return built;
}

function step(
  instruction: Instruction,
  state: BuiltStage,
  built: Map<string, BuiltStage>,
  ignored: (path: string) => boolean,
): void {
  const { keyword, text, flags } = instruction;
  if (keyword === 'WORKDIR') {
    if (state.workdir !== '/') throw new Error('one WORKDIR per stage (the scratch folder)');
    state.workdir = text;
  } else if (keyword === 'ENV') {
    Object.assign(state.env, envPairs(text));
  } else if (keyword === 'COPY') {
    const parts = text.split(/\s+/);
    const destination = parts.pop()!;
    const from = flags.from ? built.get(flags.from) : undefined;
    if (flags.from && !from) throw new Error(`COPY --from=${flags.from}: no such stage`);
    const sources = parts.map((source) =>
      from ? join(from.dir, relative(from.workdir, source)) : join(ROOT, source),
    );
    const target = join(state.dir, destination);
    for (const source of sources) {
      if (!existsSync(source)) throw new Error(`COPY: ${source} does not exist`);
      const into =
        sources.length > 1 || destination.endsWith('/') ? join(target, basename(source)) : target;
      cpSync(source, into, {
        recursive: true,
        filter: (path) => from !== undefined || !ignored(relative(ROOT, path)),
      });
    }
  } else if (keyword === 'RUN') {
    for (const command of text.split('&&').map((part) => part.trim())) {
      run(command, state);
    }
  } else if (keyword === 'CMD') {
    state.cmd = instruction.exec;
  } else if (keyword === 'HEALTHCHECK') {
    state.healthcheck = instruction.exec;
  }
  // USER and EXPOSE change nothing a scratch folder can show.
}

function run(command: string, state: BuiltStage): void {
  const words = command.split(/\s+/);
  if (words[0] === 'npm' && words[1] === 'ci') return installFromLock(words.slice(2), state.dir);
  if (words[0] === 'npm' && words[1] === 'cache') return;
  execFileSync('bash', ['-c', command], {
    cwd: state.dir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...state.env },
    stdio: 'pipe',
  });
}

const NPM_CI_FLAGS = new Set(['--ignore-scripts', '--no-audit', '--no-fund']);

interface LockEntry {
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
  link?: boolean;
}

/** What `npm ci <args>` places in `dir/node_modules`, from `dir/package-lock.json`. */
function installFromLock(args: string[], dir: string): void {
  const omit = new Set(args.filter((a) => a.startsWith('--omit=')).map((a) => a.slice(7)));
  const other = args.filter((a) => !a.startsWith('--omit=') && !NPM_CI_FLAGS.has(a));
  if (other.length > 0) throw new Error(`npm ci: the replay does not know ${other.join(' ')}`);
  // Install scripts would run in the image; none may be needed (package.json allowScripts).
  if (!args.includes('--ignore-scripts')) throw new Error('npm ci without --ignore-scripts');
  const lockText = readFileSync(join(dir, 'package-lock.json'), 'utf8');
  if (lockText !== readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) {
    throw new Error('the stage copied another lock file than the one node_modules came from');
  }
  const packages = (JSON.parse(lockText) as { packages: Record<string, LockEntry> }).packages;
  for (const [key, entry] of Object.entries(packages)) {
    if (key === '' || entry.link) continue;
    const omitted =
      (entry.dev && omit.has('dev')) ||
      (entry.optional && omit.has('optional')) ||
      (entry.devOptional && omit.has('dev') && omit.has('optional'));
    if (omitted) continue;
    const installed = join(ROOT, key);
    if (!existsSync(installed)) {
      // Another platform's binary (os/cpu in the lock): npm skips it here too.
      if (entry.optional || entry.devOptional) continue;
      throw new Error(`${key} is in the lock but not installed: run npm ci`);
    }
    linkTree(installed, join(dir, key), true);
  }
}

/** Hard-links a package's files (its nested node_modules are packages of their own). */
function linkTree(from: string, to: string, packageRoot: boolean): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (packageRoot && entry.name === 'node_modules') continue;
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else if (entry.isDirectory()) linkTree(source, target, false);
    else {
      try {
        linkSync(source, target);
      } catch {
        copyFileSync(source, target); // another file system
      }
    }
  }
}

/** .dockerignore's patterns (names and `*` globs), as Docker leaves them out of the context. */
function dockerIgnore(): (path: string) => boolean {
  const file = join(ROOT, '.dockerignore');
  if (!existsSync(file) || !statSync(file).isFile()) return () => false;
  const patterns = readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map(
      (glob) =>
        new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/|$)`),
    );
  return (path) => patterns.some((pattern) => pattern.test(path));
}
