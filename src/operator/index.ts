/**
 * The operator module's entry point: what transports, jobs and other modules may use.
 * Everything else in this folder is the module's own.
 */
export { OperatorTokenService } from './operator-token.service';
export type { IssuedOperatorToken, OperatorPrincipal } from './operator-token.service';
