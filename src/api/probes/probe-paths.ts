/**
 * The probes an orchestrator or a load balancer calls, many times a minute and without a key:
 * never counted against an address, never refused while the gateway drains (docs/cli.md,
 * "Probes").
 */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/health', '/livez', '/readyz']);
