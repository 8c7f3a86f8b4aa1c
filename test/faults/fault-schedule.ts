// The faults a fault run injects, decided up front from its seed, so a failing run replays
// (the processes' own timing aside). Pure: no clock, no processes.
import type { Chain } from '../../src/domain/chains';
import { seededRandom } from '../support/seeded-random';

export type Fault =
  /** SIGKILL one process of the fleet (by role and index), started again `downMs` later. */
  | { atMs: number; kind: 'kill'; role: 'gateway' | 'runner'; index: number; downMs: number }
  /** PostgreSQL stopped and started again on the same data after `downMs`. */
  | { atMs: number; kind: 'postgres-restart'; downMs: number }
  /** One chain's node stopped (it refuses connections) for `downMs`, then started again. */
  | { atMs: number; kind: 'chain-stop'; chain: Chain; downMs: number }
  /** The last `depth` blocks of a chain replaced by empty ones (anvil_reorg). */
  | { atMs: number; kind: 'reorg'; chain: Chain; depth: number };

export interface FaultPlan {
  seed: number;
  /** How long load is offered; faults happen inside it. */
  loadMs: number;
  gateways: number;
  runners: number;
  /** A kill every `killEveryMs[0]`..`killEveryMs[1]`. */
  killEveryMs: [number, number];
  chainStopMs: number;
  reorgs: number;
  reorgDepth: [number, number];
}

const CHAINS: Chain[] = ['BASE', 'ETHEREUM', 'POLYGON'];

/**
 * The run's faults in time order: kills at seeded intervals over the whole load, one
 * PostgreSQL restart and one chain stop in the middle third (so load runs before and after
 * each), and `reorgs` reorganisations of one chain spread over the second half. Nothing is
 * scheduled in the last 10 % of the load: every fault's recovery is loaded too.
 */
export function planFaults(plan: FaultPlan): Fault[] {
  const random = seededRandom(plan.seed);
  const end = plan.loadMs * 0.9;
  const faults: Fault[] = [];
  for (let at = random.int(...plan.killEveryMs); at < end; at += random.int(...plan.killEveryMs)) {
    const role =
      random.next() < plan.gateways / (plan.gateways + plan.runners) ? 'gateway' : 'runner';
    const count = role === 'gateway' ? plan.gateways : plan.runners;
    faults.push({
      atMs: at,
      kind: 'kill',
      role,
      index: random.int(0, count - 1),
      downMs: random.int(500, 3000),
    });
  }
  const third = plan.loadMs / 3;
  faults.push({
    atMs: Math.round(third + random.next() * third * 0.5),
    kind: 'postgres-restart',
    downMs: random.int(2000, 5000),
  });
  const stopped = random.pick(CHAINS);
  faults.push({
    atMs: Math.round(third + random.next() * third),
    kind: 'chain-stop',
    chain: stopped,
    downMs: plan.chainStopMs,
  });
  // Another chain than the one stopped: a node started again from its saved state has no
  // blocks behind that state to reorganise (anvil answers anvil_reorg with an internal error).
  const reorged = random.pick(CHAINS.filter((chain) => chain !== stopped));
  for (let i = 0; i < plan.reorgs; i += 1) {
    const slot = (end - plan.loadMs / 2) / plan.reorgs;
    faults.push({
      atMs: Math.round(plan.loadMs / 2 + slot * i + random.next() * slot * 0.8),
      kind: 'reorg',
      chain: reorged,
      depth: random.int(...plan.reorgDepth),
    });
  }
  return faults.sort((a, b) => a.atMs - b.atMs);
}

/** One line per fault, for the run's table. */
export function describeFault(fault: Fault): string {
  switch (fault.kind) {
    case 'kill':
      return `SIGKILL ${fault.role} ${fault.index}, restarted after ${fault.downMs} ms`;
    case 'postgres-restart':
      return `PostgreSQL stopped, started again after ${fault.downMs} ms`;
    case 'chain-stop':
      return `${fault.chain} node stopped for ${fault.downMs} ms`;
    case 'reorg':
      return `${fault.chain} reorganised, ${fault.depth} blocks replaced`;
  }
}
