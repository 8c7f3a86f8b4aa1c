import { Arg, ID, Resolver, Root, Subscription, type SubscribeResolverData } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { DomainError, ErrorCode } from '../../../domain/errors';
import { DepositNode } from '../types/deposit.type';

interface DepositSubscriptionArgs {
  onrampId?: string | null;
  depositId?: string | null;
}

/** Close code for a subscriber cut off for falling behind: "try again later" (RFC 6455). */
export const SLOW_SUBSCRIBER_CLOSE_CODE = 1013;

function notOverWebsocket(): DomainError {
  return new DomainError(
    ErrorCode.InvalidParameter,
    'depositUpdated is a subscription: use the graphql-ws protocol on ws(s)://<host>/graphql',
  );
}

async function subscribeToDepositUpdates({
  args,
  context,
}: SubscribeResolverData<unknown, DepositSubscriptionArgs, GraphQLContext>): Promise<
  AsyncIterableIterator<DepositNode>
> {
  const events = context.depositEvents;
  if (!events) throw notOverWebsocket();
  // Decided once, at subscribe time, by the deposits module from the caller's context.
  const filter = await context.services.deposits.watch(context.em, context.requestContext, args);
  return events.subscribe(filter, {
    onOverflow: (error) => context.closeConnection?.(SLOW_SUBSCRIBER_CLOSE_CODE, error.message),
  });
}

@Resolver(() => DepositNode)
export class DepositSubscriptionResolver {
  @Subscription(() => DepositNode, {
    description:
      'Every status change of your deposits, whichever process made it, from the moment you ' +
      "subscribe. Filters: onrampId, depositId (another merchant's ids match nothing). A client " +
      'secret watches its own onramp only: FORBIDDEN for another onramp or its deposits.',
    subscribe: subscribeToDepositUpdates,
  })
  depositUpdated(
    @Root() deposit: DepositNode | undefined,
    @Arg('onrampId', () => ID, { nullable: true }) _onrampId: string | null,
    @Arg('depositId', () => ID, { nullable: true }) _depositId: string | null,
  ): DepositNode {
    // Over HTTP, graphql-js runs a subscription field like a query field, without an event.
    if (!(deposit instanceof DepositNode)) throw notOverWebsocket();
    return deposit;
  }
}
