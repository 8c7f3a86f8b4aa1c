import {
  GraphQLError,
  parse,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';
import { GRAPHQL_PARSE_OPTIONS } from './validation-rules';

export interface DocumentCacheOptions {
  /** Documents kept (least recently used goes first). */
  maxEntries: number;
  /** Longer query texts are checked every time, never kept: bounds memory per entry. */
  maxQueryLength: number;
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

/**
 * Parse and validation results by query text, for graphql-ws: thousands of dashboards send
 * the same few subscription documents. Only valid documents are kept, and at most
 * `maxEntries` of them, so a client sending endless distinct (or broken) queries cannot grow
 * it; at worst it evicts entries and pays for its own parsing.
 */
export class DocumentCache {
  private readonly entries = new Map<string, DocumentNode>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly rules: readonly ValidationRule[],
    private readonly options: DocumentCacheOptions,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  check(query: string): CheckedDocument {
    const cached = this.entries.get(query);
    if (cached) {
      // Map order is insertion order: re-inserting marks it most recently used.
      this.entries.delete(query);
      this.entries.set(query, cached);
      return { document: cached };
    }
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
    if (query.length <= this.options.maxQueryLength) {
      this.entries.set(query, document);
      if (this.entries.size > this.options.maxEntries) {
        this.entries.delete(this.entries.keys().next().value as string);
      }
    }
    return { document };
  }
}
