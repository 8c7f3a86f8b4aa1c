/**
 * The sandbox module's entry point: what transports, jobs and other modules may use.
 * Everything else in this folder is the module's own.
 */
export { SandboxService } from './sandbox.service';
