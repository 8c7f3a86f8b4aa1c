import 'reflect-metadata';
import {
  Arg,
  Ctx,
  Field,
  GraphQLISODateTime,
  Int,
  Mutation,
  ObjectType,
  Query,
} from 'type-graphql';
import { Resolver } from 'type-graphql';
import { invalidParameter } from '../../domain/errors';
import { SanctionsListError } from '../../domain/sanctions-list';
import { submissionOfText, type ListInForce } from '../../sanctions';
import { actorOf, type AdminContext } from './admin-context';

@ObjectType('SanctionsList', {
  description: 'The sanctions list in force: every destination address is screened against it.',
})
export class SanctionsListType {
  @Field(() => String, { description: 'The list date (YYYY-MM-DD), as its audit entries give.' })
  listDate!: string;
  @Field(() => Int) addressCount!: number;
  @Field(() => String, {
    description: 'startup (the shipped snapshot or SANCTIONS_LIST_PATH) or operator (an update).',
  })
  origin!: string;
  @Field(() => String, { description: 'The file it came from, or how it was given.' })
  description!: string;
  @Field(() => String) contentSha256!: string;
  @Field(() => GraphQLISODateTime) installedAt!: Date;
  @Field(() => String) installedBy!: string;

  static from(list: ListInForce): SanctionsListType {
    return Object.assign(new SanctionsListType(), list);
  }
}

/** The operator's side of the sanctions list (as `onramp sanctions status|update`). */
@Resolver()
export class SanctionsResolver {
  @Query(() => SanctionsListType, {
    nullable: true,
    description: 'The sanctions list in force; null when none is (nothing is screened).',
  })
  async sanctionsList(@Ctx() ctx: AdminContext): Promise<SanctionsListType | null> {
    const list = await ctx.services.sanctions.status(ctx.em);
    return list ? SanctionsListType.from(list) : null;
  }

  @Mutation(() => SanctionsListType, {
    description:
      'Replaces the list in force with `list`: one EVM address per line, blank lines and # comments ignored, an optional "# date: YYYY-MM-DD" line. Any bad line refuses it whole (INVALID_PARAMETER naming the line) and the list in force stays. Bounded by the request body limit: larger lists go through `onramp sanctions update FILE`.',
  })
  async updateSanctionsList(
    @Arg('list', () => String) text: string,
    @Ctx() ctx: AdminContext,
  ): Promise<SanctionsListType> {
    let submission;
    try {
      submission = submissionOfText(text, 'admin GraphQL');
    } catch (error) {
      if (error instanceof SanctionsListError) throw invalidParameter('list', error.message);
      throw error;
    }
    return SanctionsListType.from(
      await ctx.services.sanctions.replace(ctx.em, actorOf(ctx), submission),
    );
  }
}
