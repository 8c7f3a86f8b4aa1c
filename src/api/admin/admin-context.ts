import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../../services';
import type { OperatorPrincipal } from '../../services/operator-token.service';

/** What admin resolvers receive: the operator behind the token, never a merchant. */
export interface AdminContext {
  em: EntityManager;
  operator: OperatorPrincipal;
  services: Services;
  requestId: string;
}

/** The audit log's actor for an admin request. */
export const actorOf = (ctx: AdminContext): string => `operator:${ctx.operator.name}`;
