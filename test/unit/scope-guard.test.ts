import { buildSchema } from 'graphql';
import { buildGraphQLSchema } from '../../src/api/graphql/schema';
import { ROOT_FIELD_SCOPES } from '../../src/api/graphql/root-field-scopes';
import { guardKeyScopes, NESTED_FIELD_SCOPES } from '../../src/api/graphql/scope-guard';

describe('GraphQL scope guard', () => {
  it('names only fields the schema has (a renamed field would lose its scopes)', async () => {
    const schema = await buildGraphQLSchema();
    for (const path of [...Object.keys(ROOT_FIELD_SCOPES), ...Object.keys(NESTED_FIELD_SCOPES)]) {
      const [typeName, fieldName] = path.split('.');
      const type = schema.getType(typeName);
      const fields = type && 'getFields' in type ? type.getFields() : {};
      expect([path, fieldName in fields]).toEqual([path, true]);
    }
  });

  it('refuses to build a schema whose nested guarded field is gone', () => {
    expect(() => guardKeyScopes(buildSchema('type Query { a: Int }'))).toThrow(
      /no field WebhookEndpoint\.secret/,
    );
  });
});
