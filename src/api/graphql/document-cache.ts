import { hash } from 'node:crypto';
import {
  GraphQLError,
  parse,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';
import { BoundedCache } from './bounded-cache';
import {
  GRAPHQL_PARSE_OPTIONS,
  gatewayValidationRules,
  MAX_QUERY_TOKENS,
} from './validation-rules';

export interface DocumentCacheOptions {
  /** Documents kept (least recently used goes first). */
  maxEntries: number;
  /** Longer query texts are checked every time, never kept: bounds memory per entry. */
  maxQueryLength: number;
  /** The query texts of all entries together, at most (default: no bound beyond the two above). */
  maxTotalLength?: number;
  /** The parser gives up after this many tokens (default: the gateway's, as over HTTP). */
  maxTokens?: number;
}

export type CheckedDocument = { document: DocumentNode } | { errors: readonly GraphQLError[] };

/**
 * graphql-js leaves parse and validation errors without a code; Apollo gives them these, which
 * the error formatter maps to INVALID_PARAMETER. Without one they read as unexpected (masked
 * INTERNAL_ERROR) on the websocket. A code a rule set itself is kept.
 */
function coded(error: GraphQLError, code: string): GraphQLError {
  if (error.extensions.code !== undefined) return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    originalError: error.originalError,
    extensions: { ...error.extensions, code },
  });
}

/** What Apollo names a document by (`queryHash`): the SHA-256 of its text, in hex. */
export function queryHashOf(query: string): string {
  return hash('sha256', query, 'hex');
}

/** A parsed document's query text length (what bounds its memory). */
const sourceLengthOf = (document: DocumentNode): number => document.loc?.source.body.length ?? 0;

/**
 * Parsed and validated documents by the SHA-256 of their text, shared by both transports:
 * graphql-ws calls `check`, and Apollo (HTTP) uses `documentStore` as its own document store,
 * so a document is parsed and validated once per gateway, whichever transport brings it. Both
 * validate with the same rules (`gatewayValidationRules`), and only valid documents are kept.
 * Bounded by entries and by their texts' total length, so a client sending endless distinct
 * (or broken) queries cannot grow it; at worst it evicts entries and pays for its own parsing.
 */
export class DocumentCache {
  private readonly entries: BoundedCache<DocumentNode>;

  /**
   * Apollo's `documentStore`: Apollo prefixes its keys with the schema's hash (one store could
   * serve several schemas); this cache serves one schema, so only the query's hash counts.
   */
  readonly documentStore: {
    get(key: string): Promise<DocumentNode | undefined>;
    set(key: string, document: DocumentNode): Promise<void>;
    delete(key: string): Promise<boolean>;
  };

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly rules: readonly ValidationRule[],
    private readonly options: DocumentCacheOptions,
  ) {
    this.entries = new BoundedCache<DocumentNode>(
      {
        maxEntries: options.maxEntries,
        maxEntrySize: options.maxQueryLength,
        maxTotalSize: options.maxTotalLength ?? options.maxEntries * options.maxQueryLength,
      },
      sourceLengthOf,
    );
    const hashOfKey = (key: string) => key.slice(key.lastIndexOf(':') + 1);
    this.documentStore = {
      get: async (key) => this.entries.peek(hashOfKey(key)),
      set: async (key, document) => this.entries.put(hashOfKey(key), document),
      delete: async (key) => this.entries.remove(hashOfKey(key)),
    };
  }

  get size(): number {
    return this.entries.size;
  }

  /** The validated document of this query hash, if either transport checked it already. */
  find(queryHash: string): DocumentNode | undefined {
    return this.entries.peek(queryHash);
  }

  check(query: string): CheckedDocument {
    const hash = queryHashOf(query);
    const cached = this.entries.peek(hash);
    if (cached) return { document: cached };
    let document: DocumentNode;
    try {
      document = parse(query, {
        ...GRAPHQL_PARSE_OPTIONS,
        ...(this.options.maxTokens === undefined ? {} : { maxTokens: this.options.maxTokens }),
      });
    } catch (error) {
      if (error instanceof GraphQLError) return { errors: [coded(error, 'GRAPHQL_PARSE_FAILED')] };
      throw error;
    }
    const errors = validate(this.schema, document, this.rules);
    if (errors.length > 0) {
      return { errors: errors.map((e) => coded(e, 'GRAPHQL_VALIDATION_FAILED')) };
    }
    this.entries.put(hash, document);
    return { document };
  }
}

/**
 * The gateway's one cache, for HTTP (Apollo) and graphql-ws: the same rules as Apollo applies
 * (graphql-js's and the gateway's), at most 1,000 documents and 2 MiB of query text (a parsed
 * document takes several times its text in memory).
 */
export function graphqlDocumentCache(schema: GraphQLSchema, production: boolean): DocumentCache {
  return new DocumentCache(schema, gatewayValidationRules({ production }), {
    maxEntries: 1000,
    maxQueryLength: 16 * 1024,
    maxTotalLength: 2 * 1024 * 1024,
    maxTokens: MAX_QUERY_TOKENS,
  });
}
