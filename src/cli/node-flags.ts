/** The old-generation heap cap the gateway and the job runner run with, unless told otherwise. */
export const DEFAULT_HEAP_MB = 128;

/**
 * The young generation's semi-space, in MB: Node 20's own size on 64-bit machines. Newer V8
 * (Node 24) sizes the young generation from the heap cap, and under a 128 MB cap it became so
 * small that scavenges took 23 % of a busy gateway's time (12.3 % of all samples in the reads
 * benchmark, against 2.0 % on Node 20): GraphQL reads fell to 0.35x the bare handler and the
 * REST p99 at 500 req/s to 4x its. With 16 MB: 1.7 %, REST 0.85x, GraphQL 0.64x (bench/README.md).
 */
export const SEMI_SPACE_MB = 16;

/**
 * Node flags for the service's two processes. V8 sizes its heap from the machine's memory and
 * collects lazily: on a 24 GiB machine a gateway taking deposits as fast as it could grew to
 * 230-330 MB resident, yet ran the same load with its old generation capped at 96 MB (so its
 * live heap fits well below that). Capped at 128 MB, both stayed under DESIGN.md's 200 MB
 * (`npm run bench`). `ONRAMP_HEAP_MB` sets another cap (a gateway holding many more
 * subscribers, say); a process that needs more than its cap stops with an out-of-memory error.
 * The young generation is sized on its own (`SEMI_SPACE_MB`).
 */
export function serviceNodeFlags(env: NodeJS.ProcessEnv): string[] {
  const asked = env.ONRAMP_HEAP_MB ?? '';
  const mb = /^[0-9]{1,6}$/.test(asked) && Number(asked) >= 64 ? Number(asked) : DEFAULT_HEAP_MB;
  return [`--max-old-space-size=${mb}`, `--max-semi-space-size=${SEMI_SPACE_MB}`];
}
