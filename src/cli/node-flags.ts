/** The old-generation heap cap the gateway and the job runner run with, unless told otherwise. */
export const DEFAULT_HEAP_MB = 128;

/**
 * Node flags for the service's two processes. V8 sizes its heap from the machine's memory and
 * collects lazily: on a 24 GiB machine a gateway taking deposits as fast as it could grew to
 * 230-330 MB resident, yet ran the same load with its old generation capped at 96 MB (so its
 * live heap fits well below that). Capped at 128 MB, both stayed under DESIGN.md's 200 MB
 * (`npm run bench`). `ONRAMP_HEAP_MB` sets another cap (a gateway holding many more
 * subscribers, say); a process that needs more than its cap stops with an out-of-memory error.
 */
export function serviceNodeFlags(env: NodeJS.ProcessEnv): string[] {
  const asked = env.ONRAMP_HEAP_MB ?? '';
  const mb = /^[0-9]{1,6}$/.test(asked) && Number(asked) >= 64 ? Number(asked) : DEFAULT_HEAP_MB;
  return [`--max-old-space-size=${mb}`];
}
