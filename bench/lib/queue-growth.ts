import type { DepositTiming } from './deposits-db';

/**
 * How many deposits had arrived and were not yet SETTLED at each moment of `[fromMs, toMs)`,
 * sampled every `stepMs` (times in ms since the epoch, the database clock). A deposit never
 * SETTLED stays in the backlog to the end.
 */
export function backlogOverTime(
  timings: readonly DepositTiming[],
  fromMs: number,
  toMs: number,
  stepMs: number,
): Array<{ atMs: number; backlog: number }> {
  const arrived = timings.map((t) => t.createdMs).sort((a, b) => a - b);
  const settled = timings
    .flatMap((t) => (t.latencyMs === null ? [] : [t.createdMs + t.latencyMs]))
    .sort((a, b) => a - b);
  const points: Array<{ atMs: number; backlog: number }> = [];
  let a = 0;
  let s = 0;
  for (let at = fromMs; at < toMs; at += stepMs) {
    while (a < arrived.length && arrived[a] <= at) a += 1;
    while (s < settled.length && settled[s] <= at) s += 1;
    points.push({ atMs: at, backlog: a - s });
  }
  return points;
}

/**
 * The least-squares slope of the backlog, in deposits per second: what the queue gains each
 * second. A pipeline that keeps up has a backlog that rises and falls with each block around a
 * level, and a slope near 0 over whole seconds; one that settles a share `k` of what arrives
 * gains `(1 - k) x rate` every second.
 */
export function growthPerSecond(points: ReadonlyArray<{ atMs: number; backlog: number }>): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const meanT = points.reduce((sum, p) => sum + p.atMs, 0) / n;
  const meanB = points.reduce((sum, p) => sum + p.backlog, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const p of points) {
    covariance += (p.atMs - meanT) * (p.backlog - meanB);
    variance += (p.atMs - meanT) ** 2;
  }
  return (covariance / variance) * 1000;
}

/** Deposits created in the phase's first and last `windowMs` (by their own created_at). */
export function firstAndLast(
  timings: readonly DepositTiming[],
  durationMs: number,
  windowMs: number,
): { first: DepositTiming[]; last: DepositTiming[] } {
  const start = Math.min(...timings.map((t) => t.createdMs));
  const end = start + durationMs;
  return {
    first: timings.filter((t) => t.createdMs < start + windowMs),
    last: timings.filter((t) => t.createdMs >= end - windowMs),
  };
}

/**
 * A load phase's backlog from `fillMs` after its first arrival (the pipeline filling up is not
 * growth) to the end of the load (`durationMs` after the first arrival), every `stepMs`: its
 * growth per second and its mean over the first and last `windowMs` of that span.
 */
export function queueGrowth(
  timings: readonly DepositTiming[],
  durationMs: number,
  options: { fillMs: number; stepMs: number; windowMs: number },
): { perSecond: number; firstMean: number; lastMean: number } {
  const start = Math.min(...timings.map((t) => t.createdMs));
  const from = start + options.fillMs;
  const to = start + durationMs;
  const points = backlogOverTime(timings, from, to, options.stepMs);
  const mean = (ps: typeof points) =>
    Math.round(ps.reduce((sum, p) => sum + p.backlog, 0) / Math.max(1, ps.length));
  return {
    perSecond: growthPerSecond(points),
    firstMean: mean(points.filter((p) => p.atMs < from + options.windowMs)),
    lastMean: mean(points.filter((p) => p.atMs >= to - options.windowMs)),
  };
}
