import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../../container';
import type { OperatorPrincipal } from '../../operator';
import type { OperatorContext } from '../../context/request-context';

/** What admin resolvers receive: the operator behind the token, never a merchant. */
export interface AdminContext {
  em: EntityManager;
  operator: OperatorPrincipal;
  /** The operator's request context (every merchant): what the read services take. */
  requestContext: OperatorContext;
  services: Services;
  requestId: string;
}

/** The audit log's actor for an admin request (`operator:<token name>`, set by the route). */
export const actorOf = (ctx: AdminContext): string => ctx.requestContext.actor;
