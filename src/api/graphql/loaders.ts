import DataLoader from 'dataloader';
import type { GraphQLContext } from './context';

export interface StatusChange {
  status: string;
  event: string;
  at: Date;
}

/**
 * Loaders hang off the context object they serve, created on first use, so neither transport
 * has to build them (and a context no longer referenced takes its loaders with it).
 */
const statusHistoryLoaders = new WeakMap<GraphQLContext, DataLoader<string, StatusChange[]>>();

/**
 * `Deposit.statusHistory` for every deposit of one execution in one query: graphql-js resolves
 * a list's items in the same tick, and DataLoader collects their keys. Scoped by the caller's
 * context (its merchant; a client secret's onramp). Not caching: a websocket subscription keeps its context across executions, and
 * each status change must read the history afresh.
 */
export function statusHistoryLoader(ctx: GraphQLContext): DataLoader<string, StatusChange[]> {
  let loader = statusHistoryLoaders.get(ctx);
  if (!loader) {
    loader = new DataLoader(
      async (depositIds) => {
        const histories = await ctx.services.deposits.statusHistories(
          ctx.em,
          ctx.requestContext,
          depositIds,
        );
        return depositIds.map((id) => histories.get(id) ?? []);
      },
      { cache: false, maxBatchSize: 500 },
    );
    statusHistoryLoaders.set(ctx, loader);
  }
  return loader;
}
