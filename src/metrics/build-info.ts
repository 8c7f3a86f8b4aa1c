import { Gauge, type Registry } from 'prom-client';
import { BUILT_COMMIT, VERSION } from '../version';

/**
 * `onramp_build_info{version, commit, node}` = 1: which build each process runs, to join on
 * (`* on(instance) group_left(version) onramp_build_info`) and to see a rollout progress or
 * stall. `commit` is '' when neither the build nor ONRAMP_COMMIT recorded it.
 */
export function registerBuildInfo(registry: Registry, commit?: string): void {
  new Gauge({
    name: 'onramp_build_info',
    help: 'Always 1; the labels say which build this process runs.',
    labelNames: ['version', 'commit', 'node'] as const,
    registers: [registry],
  }).set({ version: VERSION, commit: commit ?? BUILT_COMMIT, node: process.version }, 1);
}
