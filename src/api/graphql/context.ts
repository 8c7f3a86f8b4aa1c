import type { EntityManager } from '@mikro-orm/postgresql';
import type { MerchantContext, Principal } from '../../context/request-context';
import type { Services } from '../../container';
import type { DepositEvents } from '../subscriptions/deposit-event-hub';

/** What every resolver receives: a fresh EntityManager, the caller and its context, and the use cases. */
export interface GraphQLContext {
  em: EntityManager;
  principal: Principal;
  /** The caller's request context (principal, merchant, environment, clock): read services take it. */
  requestContext: MerchantContext;
  services: Services;
  requestId: string;
  /** Live deposit events; only over graphql-ws (subscriptions are not served over HTTP). */
  depositEvents?: DepositEvents;
  /** Closes the caller's websocket (a subscriber too slow to keep up); graphql-ws only. */
  closeConnection?: (code: number, reason: string) => void;
}
