import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Field, ObjectType, Query, Resolver } from 'type-graphql';
import { buildGraphQLSchema, schemaFileDrift } from '../../src/api/graphql/schema';

const SCHEMA_FILE = join(__dirname, '..', '..', 'schema.graphql');

@ObjectType('SchemaDriftProbe')
class SchemaDriftProbe {
  @Field(() => String)
  probe!: string;
}

@Resolver()
class SchemaDriftProbeResolver {
  @Query(() => SchemaDriftProbe)
  schemaDriftProbe(): SchemaDriftProbe {
    return { probe: 'x' };
  }
}

describe('schema.graphql', () => {
  it('matches the schema built from the resolvers (run `npm run schema` when this fails)', async () => {
    const drift = schemaFileDrift(await buildGraphQLSchema(), readFileSync(SCHEMA_FILE, 'utf8'));
    expect(drift).toBeNull();
  });

  it('is reported stale when the schema changes', async () => {
    const changed = await buildGraphQLSchema([SchemaDriftProbeResolver]);
    const drift = schemaFileDrift(changed, readFileSync(SCHEMA_FILE, 'utf8'));
    expect(drift).toMatch(/schema\.graphql is stale at line \d+/);
  });

  it('is reported stale when the file is edited by hand', async () => {
    const edited = readFileSync(SCHEMA_FILE, 'utf8').replace('rateId: ID!', 'rateId: String!');
    expect(schemaFileDrift(await buildGraphQLSchema(), edited)).toMatch(/stale/);
  });
});
