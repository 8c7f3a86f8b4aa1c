import { Field, ObjectType } from 'type-graphql';

@ObjectType('PageInfo')
export class PageInfoType {
  @Field(() => Boolean)
  hasNextPage!: boolean;

  @Field(() => Boolean)
  hasPreviousPage!: boolean;

  @Field(() => String, { nullable: true })
  startCursor!: string | null;

  @Field(() => String, { nullable: true })
  endCursor!: string | null;
}

/** Builds `edges` and `pageInfo` for a page of nodes read newest first. */
export function connectionOf<N, T>(
  nodes: N[],
  toType: (node: N) => T,
  cursorOf: (node: N) => string,
  hasNextPage: boolean,
  hasPreviousPage: boolean,
): { edges: Array<{ cursor: string; node: T }>; pageInfo: PageInfoType } {
  const edges = nodes.map((node) => ({ cursor: cursorOf(node), node: toType(node) }));
  return {
    edges,
    pageInfo: Object.assign(new PageInfoType(), {
      hasNextPage,
      hasPreviousPage,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    }),
  };
}
