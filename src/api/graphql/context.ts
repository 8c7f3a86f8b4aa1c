import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../../services/auth.service';
import type { Services } from '../../services';
import type { DepositEvents } from '../subscriptions/deposit-event-hub';

/** What every resolver receives: a fresh EntityManager, the caller, and the use cases. */
export interface GraphQLContext {
  em: EntityManager;
  principal: Principal;
  services: Services;
  requestId: string;
  /** Live deposit events; only over graphql-ws (subscriptions are not served over HTTP). */
  depositEvents?: DepositEvents;
  /** Closes the caller's websocket (a subscriber too slow to keep up); graphql-ws only. */
  closeConnection?: (code: number, reason: string) => void;
}
