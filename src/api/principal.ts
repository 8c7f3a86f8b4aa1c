import type { EntityManager } from '@mikro-orm/postgresql';
import type { MerchantContext, Principal } from '../context/request-context';
import type { OperatorPrincipal } from '../operator';
import { DomainError, ErrorCode } from '../domain/errors';
import type { ApiScope } from '../domain/api-scopes';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    /** Built with `principal`, once per request: what the read services take. */
    requestContext?: MerchantContext;
    /** Set on operator routes (`/admin/graphql`) instead of `principal`. */
    operator?: OperatorPrincipal;
    em: EntityManager;
  }
  interface FastifyContextConfig {
    /** `public` routes skip authentication and rate limiting (health, OpenAPI document). */
    public?: boolean;
    /** Routes an onramp's client secret may call (the read services hold it to its onramp). */
    clientSecret?: boolean;
    /**
     * REST routes the dashboard calls with its session cookie and CSRF token (as GraphQL),
     * besides a key: the report downloads. The session's scopes apply as a key's would.
     */
    dashboardSession?: boolean;
    /** Operator routes: an operator token, never a merchant key. */
    operator?: boolean;
    /**
     * The scopes that let a restricted key call the route (any one of them; `all` always
     * does). Absent on an authenticated route: only a key with `all` may call it.
     */
    scopes?: readonly ApiScope[];
  }
}

/** The context of an authenticated route's request (every route but the public ones). */
export function requestContextOf(request: { requestContext?: MerchantContext }): MerchantContext {
  if (!request.requestContext) {
    throw new DomainError(ErrorCode.Unauthorized, 'Authentication required');
  }
  return request.requestContext;
}
