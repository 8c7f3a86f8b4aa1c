import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../services/auth.service';
import type { OperatorPrincipal } from '../services/operator-token.service';
import { DomainError, ErrorCode } from '../domain/errors';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    /** Set on operator routes (`/admin/graphql`) instead of `principal`. */
    operator?: OperatorPrincipal;
    em: EntityManager;
  }
  interface FastifyContextConfig {
    /** `public` routes skip authentication and rate limiting (health, OpenAPI document). */
    public?: boolean;
    /** Routes an onramp's client secret may call (each still checks it is that onramp's). */
    clientSecret?: boolean;
    /** Operator routes: an operator token, never a merchant key. */
    operator?: boolean;
  }
}

export function requirePrincipal(principal: Principal | undefined): Principal {
  if (!principal) throw new DomainError(ErrorCode.Unauthorized, 'Authentication required');
  return principal;
}
