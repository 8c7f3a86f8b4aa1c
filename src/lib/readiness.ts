import { ErrorCode, errorBody } from '../domain/errors';

// The probes both processes answer (docs/cli.md, "Probes"): `/livez` says the process answers
// and depends on nothing; `/readyz` says it can do its work now, naming what it waits for.

/** Where a process is in its life, reported by both probes. */
export type Phase = 'waiting_for_database' | 'starting' | 'running' | 'stopping';

const PHASE_WORDS: Record<Phase, string> = {
  waiting_for_database: 'waiting for the database',
  starting: 'starting',
  running: 'running',
  stopping: 'stopping',
};

/** One required dependency's state: 'starting' is not down, only not there yet. */
export type CheckState = 'ok' | 'down' | 'starting';

export interface ProbeAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** `/livez`: 200 whenever the event loop turns; what the process is doing, for people. */
export function livenessAnswer(process: string, phase: Phase): ProbeAnswer {
  return { status: 200, body: { status: 'ok', process, phase } };
}

/**
 * `/readyz`: 200 when every required check is ok and the process runs; else 503 in the API's
 * error shape, `failed` naming each check that is not ok. `informational`: reported
 * beside the checks, never a reason to be unready (the providers: see docs/decisions.md, an
 * outage they all share must not take every gateway out of the load balancer).
 */
export function readinessAnswer(
  process: string,
  phase: Phase,
  checks: Record<string, CheckState>,
  informational: Record<string, unknown> = {},
): ProbeAnswer {
  const reasons = Object.entries(checks)
    .filter(([, state]) => state !== 'ok')
    .map(([name, state]) => `${name} ${state === 'down' ? 'is down' : 'is starting'}`);
  if (phase !== 'running') reasons.unshift(`the ${process} is ${PHASE_WORDS[phase]}`);
  const body = { process, phase, checks, ...informational };
  if (reasons.length === 0) return { status: 200, body: { status: 'ok', ...body } };
  return {
    status: 503,
    body: {
      status: 'unavailable',
      ...body,
      failed: Object.keys(checks).filter((name) => checks[name] !== 'ok'),
      ...errorBody(ErrorCode.ServiceUnavailable, `Not ready: ${reasons.join('; ')}`),
    },
  };
}
