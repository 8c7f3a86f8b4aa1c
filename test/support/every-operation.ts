import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isAbstractType,
  type GraphQLInputType,
  type GraphQLField,
} from 'graphql';

/** One REST operation of the OpenAPI document, with its path parameters filled in. */
export interface RestOperation {
  method: string;
  /** The documented path (`/v1/onramp/{id}`). */
  template: string;
  /** A path to call (`/v1/onramp/x`). */
  path: string;
  operationId: string;
}

/**
 * Every operation the gateway documents (its own `/v1/openapi.json`, built from the routes it
 * registered), so a test iterating them cannot forget a route added later.
 */
export async function restOperations(baseUrl: string): Promise<RestOperation[]> {
  const response = await fetch(`${baseUrl}/v1/openapi.json`);
  const document = (await response.json()) as {
    paths: Record<string, Record<string, { operationId: string }>>;
  };
  return Object.entries(document.paths).flatMap(([template, methods]) =>
    Object.entries(methods)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, operation]) => ({
        method: method.toUpperCase(),
        template,
        path: template.replace(/\{[^}]+\}/g, 'x_unknown'),
        operationId: operation.operationId,
      })),
  );
}

/** A literal for an input type: the smallest value that passes validation. */
function literal(type: GraphQLInputType): string {
  if (isNonNullType(type)) return literal(type.ofType);
  if (isListType(type)) return `[${literal(type.ofType)}]`;
  if (isEnumType(type)) return type.getValues()[0].name;
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields())
      .filter((f) => isNonNullType(f.type))
      .map((f) => `${f.name}: ${literal(f.type)}`);
    return `{${fields.join(', ')}}`;
  }
  switch (type.name) {
    case 'Int':
    case 'Float':
      return '1';
    case 'Boolean':
      return 'true';
    default:
      return '"x"';
  }
}

/** A document selecting one root field with its required arguments (values that validate). */
function documentFor(operation: 'query' | 'mutation', field: GraphQLField<unknown, unknown>) {
  const args = field.args
    .filter((a) => isNonNullType(a.type))
    .map((a) => `${a.name}: ${literal(a.type)}`);
  const named = getNamedType(field.type);
  const selection = isObjectType(named) || isAbstractType(named) ? ' { __typename }' : '';
  return `${operation} { ${field.name}${args.length ? `(${args.join(', ')})` : ''}${selection} }`;
}

/** Every Query and Mutation root field of `schema.graphql`, each with a document that validates. */
export function graphqlRootFields(): Array<{ field: string; document: string }> {
  const schema = buildSchema(readFileSync(join(__dirname, '..', '..', 'schema.graphql'), 'utf8'));
  const out: Array<{ field: string; document: string }> = [];
  for (const [operation, type] of [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
  ] as const) {
    for (const field of Object.values(type?.getFields() ?? {})) {
      out.push({ field: `${type!.name}.${field.name}`, document: documentFor(operation, field) });
    }
  }
  return out;
}
