import {
  execute,
  getOperationAST,
  getVariableValues,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { variablesRefusal } from './apollo';
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

/** Apollo's answer to a query without an `accept` header. */
export const DEFAULT_CONTENT_TYPE = 'application/json; charset=utf-8';
/** Distinct `accept` headers whose content type is remembered; a client cannot grow it. */
const MAX_ACCEPT_HEADERS = 64;

interface HotOperation {
  operation: OperationDefinitionNode;
  runs: number;
  /** graphql-jit's compiled form once the operation is hot; null when it cannot compile. */
  compiled?: CompiledQuery | null;
}

/**
 * Per validated document (the document cache's, so eviction frees these too), by operation
 * name (null: none given, the document's only operation).
 */
const operationsOf = new WeakMap<DocumentNode, Map<string | null, HotOperation>>();

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Queries over HTTP without Apollo's per-request pipeline, for what clients send all the time:
 * a query operation whose document this gateway already parsed and validated (the shared
 * document cache, filled by Apollo or graphql-ws with the gateway's rules), sent in full or as
 * a known persisted-query hash, in a JSON POST. Its variables pass the same checks as in
 * Apollo's pipeline (`variablesRefusal`); it executes with graphql-js, and once it has run
 * `compileAfter` times, with graphql-jit's compiled form of it (bench/notes/reads-graphql.md).
 *
 * Anything else goes to Apollo, which answers it as ever: a first sight of a document,
 * mutations, subscriptions, GET, batches, registrations of persisted queries, unknown hashes,
 * a refusal, and every result with an error (a query reads only, so Apollo runs it again and
 * shapes its errors exactly as for any other request). So the hot path only ever answers a
 * `{"data": ...}` that Apollo would have answered with the same status, headers and body; the
 * content type for an `accept` header is the one Apollo chose for it before (`learn`).
 */
export class HotQueries {
  private readonly contentTypes = new Map<string, string>();
  /** Queries answered here, by graphql-js and by a compiled form (the gateway's metrics). */
  readonly answered = { graphqlJs: 0, compiled: 0 };

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly documents: DocumentCache,
    private readonly persistedQueries: BoundedCache<string>,
    private readonly options: { compileAfter: number },
  ) {}

  /** The body to send (200), or undefined: let Apollo answer. */
  async answer(
    body: unknown,
    accept: string | undefined,
    context: () => Promise<GraphQLContext>,
  ): Promise<{ body: string; contentType: string } | undefined> {
    const contentType = accept === undefined ? DEFAULT_CONTENT_TYPE : this.contentTypes.get(accept);
    if (contentType === undefined || !isRecord(body)) return undefined;
    const { operationName, variables } = body;
    if (operationName !== undefined && operationName !== null && typeof operationName !== 'string')
      return undefined;
    if (variables !== undefined && variables !== null && !isRecord(variables)) return undefined;
    const document = this.documentOf(body);
    if (!document) return undefined;
    const hot = this.operationOf(document, operationName ?? undefined);
    if (!hot || hot.operation.operation !== 'query') return undefined;
    if (variablesRefusal(this.schema, document, operationName, variables)) return undefined;
    let result: ExecutionResult;
    try {
      result = await this.run(hot, document, await context(), variables ?? undefined);
    } catch {
      return undefined; // graphql-js and graphql-jit report errors in the result; Apollo decides
    }
    if (result.errors !== undefined) return undefined;
    if (hot.compiled) this.answered.compiled += 1;
    else this.answered.graphqlJs += 1;
    return { body: `${JSON.stringify({ data: result.data })}\n`, contentType };
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

  private operationOf(document: DocumentNode, name: string | undefined): HotOperation | undefined {
    let operations = operationsOf.get(document);
    if (!operations) {
      operations = new Map();
      operationsOf.set(document, operations);
    }
    const key = name ?? null;
    let hot = operations.get(key);
    if (!hot) {
      const operation = getOperationAST(document, name);
      if (!operation) return undefined;
      hot = { operation, runs: 0 };
      operations.set(key, hot);
    }
    return hot;
  }

  private async run(
    hot: HotOperation,
    document: DocumentNode,
    contextValue: GraphQLContext,
    variableValues: Record<string, unknown> | undefined,
  ): Promise<ExecutionResult> {
    hot.runs += 1;
    if (hot.compiled === undefined && hot.runs >= this.options.compileAfter) {
      // One attempt per operation: a document it cannot compile stays on graphql-js.
      hot.compiled = null;
      const compiled = compileQuery(this.schema, document, hot.operation.name?.value);
      if (isCompiledQuery(compiled)) hot.compiled = compiled;
    }
    if (hot.compiled) {
      // graphql-jit coerces variables its own way: graphql-js decides which it accepts, so a
      // value Apollo would refuse never runs (its refusal falls back to Apollo, as any error).
      const definitions = hot.operation.variableDefinitions ?? [];
      const coerced = getVariableValues(this.schema, definitions, variableValues ?? {});
      if (coerced.errors) return { errors: coerced.errors };
      return hot.compiled.query(undefined, contextValue, variableValues ?? {});
    }
    return execute({
      schema: this.schema,
      document,
      operationName: hot.operation.name?.value,
      contextValue,
      variableValues,
    });
  }
}
