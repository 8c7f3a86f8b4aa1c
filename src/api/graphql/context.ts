import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../../services/auth.service';
import type { Services } from '../../services';

/** What every resolver receives: a fresh EntityManager, the caller, and the use cases. */
export interface GraphQLContext {
  em: EntityManager;
  principal: Principal;
  services: Services;
  requestId: string;
}
