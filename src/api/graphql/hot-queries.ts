import {
  execute,
  getOperationAST,
  getVariableValues,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { variablesRefusal } from './apollo';
import { apolloShapedAnswer, type FormatError } from './apollo-response';
import type { BoundedCache } from './bounded-cache';
import type { GraphQLContext } from './context';
import { queryHashOf, type DocumentCache } from './document-cache';

/** The parts of a POST /graphql body the hot path reads (Fastify parsed the JSON). */
export interface GraphQLHttpBody {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
  extensions?: unknown;
}

/** What the hot path answers: Apollo's status, headers and body for the same request. */
export interface HotAnswer {
  status: number;
  headers: Map<string, string>;
  contentType: string;
  body: string;
}

/** Apollo's answer to a query without an `accept` header. */
export const DEFAULT_CONTENT_TYPE = 'application/json; charset=utf-8';
/** Distinct `accept` headers whose content type is remembered; a client cannot grow it. */
const MAX_ACCEPT_HEADERS = 64;

/**
 * A validated document's operations, by operation name (null: none given, the document's only
 * operation); kept beside the document cache's entry, so eviction frees these too.
 */
const operationsOf = new WeakMap<DocumentNode, Map<string | null, OperationDefinitionNode>>();

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Queries over HTTP without Apollo's per-request pipeline, for what clients send all the time:
 * a query operation whose document this gateway already parsed and validated (the shared
 * document cache, filled by Apollo or graphql-ws with the gateway's rules), sent in full or as
 * a known persisted-query hash, in a JSON POST, whose variables pass the same checks as in
 * Apollo's pipeline (`variablesRefusal`) and coerce. It executes with graphql-js, as Apollo
 * would, on the same schema and context.
 *
 * Whether the hot path answers is decided before anything executes, and once it has executed
 * it always answers, errors included, shaped exactly as Apollo shapes them
 * (`apolloShapedAnswer`): a document never executes twice. Everything else goes to Apollo
 * untouched: a first sight of a document, mutations (never here: their effects are Apollo's
 * alone), subscriptions, GET, batches, registrations of persisted queries, unknown hashes,
 * refused or uncoercible variables. The content type for an `accept` header is the one Apollo
 * chose for it before (`learn`).
 */
export class HotQueries {
  private readonly contentTypes = new Map<string, string>();
  /** Queries answered here (the gateway's metrics). */
  readonly answered = { graphqlJs: 0 };

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly documents: DocumentCache,
    private readonly persistedQueries: BoundedCache<string>,
    private readonly formatError: FormatError,
  ) {}

  /** The answer to send, or undefined: let Apollo answer (nothing has executed). */
  async answer(
    body: unknown,
    accept: string | undefined,
    context: () => Promise<GraphQLContext>,
  ): Promise<HotAnswer | undefined> {
    const contentType = accept === undefined ? DEFAULT_CONTENT_TYPE : this.contentTypes.get(accept);
    if (contentType === undefined || !isRecord(body)) return undefined;
    const { operationName, variables } = body;
    if (operationName !== undefined && operationName !== null && typeof operationName !== 'string')
      return undefined;
    if (variables !== undefined && variables !== null && !isRecord(variables)) return undefined;
    const document = this.documentOf(body);
    if (!document) return undefined;
    const operation = this.operationOf(document, operationName ?? undefined);
    if (!operation || operation.operation !== 'query') return undefined;
    if (variablesRefusal(this.schema, document, operationName, variables)) return undefined;
    // Variables Apollo would refuse (BAD_USER_INPUT, 400) are Apollo's to answer: decided here,
    // by the same coercion execution starts with, before anything runs.
    const definitions = operation.variableDefinitions ?? [];
    if (getVariableValues(this.schema, definitions, variables ?? {}).errors) return undefined;
    let contextValue: GraphQLContext;
    try {
      contextValue = await context();
    } catch {
      return undefined; // nothing has run: Apollo builds the context again and answers its error
    }
    let result: ExecutionResult;
    let failed = false;
    try {
      result = await execute({
        schema: this.schema,
        document,
        operationName: operation.name?.value,
        contextValue,
        variableValues: variables ?? undefined,
      });
    } catch (error) {
      // graphql-js reports resolvers' errors in the result; Apollo answers a throw with a 500.
      result = { errors: [error as Error] as never };
      failed = true;
    }
    this.answered.graphqlJs += 1;
    const shaped = apolloShapedAnswer(result, this.formatError, failed);
    return {
      status: shaped.status ?? 200,
      headers: shaped.headers,
      contentType,
      body: shaped.body,
    };
  }

  /** Remembers the content type Apollo answered a query to this `accept` header with. */
  learn(accept: string | undefined, contentType: string | undefined): void {
    if (accept === undefined || contentType === undefined || this.contentTypes.has(accept)) return;
    if (this.contentTypes.size >= MAX_ACCEPT_HEADERS) return;
    this.contentTypes.set(accept, contentType);
  }

  /** The cached document of a full query, or of a known persisted-query hash; else none. */
  private documentOf(body: GraphQLHttpBody): DocumentNode | undefined {
    const { query, extensions } = body;
    if (extensions === undefined || extensions === null) {
      return typeof query === 'string' && query !== ''
        ? this.documents.find(queryHashOf(query))
        : undefined;
    }
    // Only the hash-only form: a registration (query and hash) is Apollo's to check and store.
    if (query !== undefined || !isRecord(extensions)) return undefined;
    const persisted = extensions.persistedQuery;
    if (Object.keys(extensions).length !== 1 || !isRecord(persisted)) return undefined;
    const { version, sha256Hash } = persisted;
    if (version !== 1 || typeof sha256Hash !== 'string') return undefined;
    if (Object.keys(persisted).length !== 2) return undefined;
    if (this.persistedQueries.peek(`apq:${sha256Hash}`) === undefined) return undefined;
    return this.documents.find(sha256Hash);
  }

  private operationOf(
    document: DocumentNode,
    name: string | undefined,
  ): OperationDefinitionNode | undefined {
    let operations = operationsOf.get(document);
    if (!operations) {
      operations = new Map();
      operationsOf.set(document, operations);
    }
    const key = name ?? null;
    let operation = operations.get(key);
    if (!operation) {
      operation = getOperationAST(document, name) ?? undefined;
      if (!operation) return undefined;
      operations.set(key, operation);
    }
    return operation;
  }
}
