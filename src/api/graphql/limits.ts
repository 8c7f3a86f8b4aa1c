import {
  BREAK,
  getNamedType,
  GraphQLError,
  isInterfaceType,
  isObjectType,
  Kind,
  type ASTVisitor,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
  type ValueNode,
  visit,
} from 'graphql';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../domain/pagination';

export interface QueryLimits {
  maxDepth: number;
  maxAliases: number;
  /**
   * Every selected field costs 1, times the page size of every list it sits in (`first`,
   * `per_page`, `limit`), so the number approximates the objects the answer holds.
   */
  maxCost: number;
}

/**
 * The dashboard's largest query (50 deposits with 16 fields) costs 901 and a full page of 100
 * deposits with every field and `statusHistory` about 3,000; twenty aliased
 * `deposits(first: 100) { edges { node { statusHistory { status } } } }` cost 8,020.
 */
export const DEFAULT_LIMITS: QueryLimits = { maxDepth: 10, maxAliases: 20, maxCost: 5000 };

/** Arguments that size a list: the list's children cost that many times. */
const PAGE_SIZE_ARGUMENTS = new Set(['first', 'per_page', 'limit']);

/**
 * Introspection is read from the schema in memory; graphql-js's MaxIntrospectionDepthRule
 * (in specifiedRules) and the parser's token limit bound it, and production refuses it.
 */
const INTROSPECTION_FIELDS = new Set(['__schema', '__type']);

/** What a selection set adds, measured once at multiplier 1 (cost is linear in it). */
interface Measure {
  depth: number;
  aliases: number;
  cost: number;
}

class LimitExceeded extends Error {}

export function limitError(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'INVALID_PARAMETER' } });
}

/**
 * Page sizes given as variables: `values` when the request's variables are known (before
 * execution), otherwise each counts as 1, the least it can be, so that validation (whose
 * result is cached per document text) never refuses what the variables would allow.
 */
export interface PageSizeVariables {
  values?: Readonly<Record<string, unknown>>;
}

function pageSizeOf(
  value: ValueNode,
  operation: OperationDefinitionNode,
  variables: PageSizeVariables,
): number {
  let given: unknown;
  if (value.kind === Kind.INT) given = Number(value.value);
  else if (value.kind === Kind.VARIABLE) {
    if (!variables.values) return 1;
    const name = value.name.value;
    given = variables.values[name];
    if (given === undefined) {
      const fallback = operation.variableDefinitions?.find((d) => d.variable.name.value === name);
      if (fallback?.defaultValue?.kind === Kind.INT) given = Number(fallback.defaultValue.value);
    }
  }
  if (given === undefined || given === null) return DEFAULT_PAGE_SIZE;
  // A page size outside 1..MAX_PAGE_SIZE is refused by the resolver before any work is done.
  if (typeof given !== 'number' || !Number.isFinite(given)) return DEFAULT_PAGE_SIZE;
  return Math.min(Math.max(Math.trunc(given), 1), MAX_PAGE_SIZE);
}

/** Fields and their arguments, of types that have fields; null for anything else. */
function fieldsOf(type: GraphQLNamedType | null | undefined) {
  return type && (isObjectType(type) || isInterfaceType(type)) ? type.getFields() : null;
}

function multiplierOf(
  node: FieldNode,
  definition: GraphQLField<unknown, unknown>,
  operation: OperationDefinitionNode,
  variables: PageSizeVariables,
): number {
  const sized = definition.args.find((a) => PAGE_SIZE_ARGUMENTS.has(a.name));
  if (!sized) return 1;
  const argument = node.arguments?.find((a) => a.name.value === sized.name);
  // A list whose page size is not given answers the default page.
  return argument ? pageSizeOf(argument.value, operation, variables) : DEFAULT_PAGE_SIZE;
}

/**
 * Measures one operation against the limits, each fragment once (a spread reuses its
 * measure, so ten fragments each spreading the next thirty times cost ten measurements, not
 * 30^9 walks), stopping at the first limit passed. Returns the refusal, or null.
 */
export function measureOperation(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  limits: QueryLimits,
  variables: PageSizeVariables = {},
): GraphQLError | null {
  const measured = new Map<string, Measure>();
  const inProgress = new Set<string>();
  const none: Measure = { depth: 0, aliases: 0, cost: 0 };

  // Every part of the document is counted into the whole at least once (multipliers are at
  // least 1), so a part over a limit means the whole is over it: stop there.
  const check = (m: Measure): Measure => {
    if (m.depth > limits.maxDepth) {
      throw new LimitExceeded(`Query depth exceeds the limit of ${limits.maxDepth}`);
    }
    if (m.aliases > limits.maxAliases) {
      throw new LimitExceeded(`More than ${limits.maxAliases} aliases: over the limit`);
    }
    if (m.cost > limits.maxCost) {
      throw new LimitExceeded(
        `Query cost exceeds the limit of ${limits.maxCost} (each field counts once per item of every list it is in: lower \`first\`, or split the query)`,
      );
    }
    return m;
  };

  const fragment = (name: string): Measure => {
    const known = measured.get(name);
    if (known) return known;
    const definition = fragments.get(name);
    // Unknown fragments and cycles are refused by the standard rules.
    if (!definition || inProgress.has(name)) return none;
    inProgress.add(name);
    const type = schema.getType(definition.typeCondition.name.value);
    const result = selectionSet(definition.selectionSet, type);
    inProgress.delete(name);
    measured.set(name, result);
    return result;
  };

  const field = (node: FieldNode, parent: GraphQLNamedType | null | undefined): Measure => {
    const name = node.name.value;
    if (INTROSPECTION_FIELDS.has(name)) return none;
    const aliases = node.alias ? 1 : 0;
    if (name === '__typename') return check({ depth: 1, aliases, cost: 0 });
    const definition = fieldsOf(parent)?.[name];
    // Unknown fields are refused by the standard rules; nothing to measure.
    if (!definition) return none;
    if (!node.selectionSet) return check({ depth: 1, aliases, cost: 1 });
    const inner = selectionSet(node.selectionSet, getNamedType(definition.type));
    return check({
      depth: inner.depth + 1,
      aliases: inner.aliases + aliases,
      cost: 1 + inner.cost * multiplierOf(node, definition, operation, variables),
    });
  };

  const selectionSet = (
    set: SelectionSetNode,
    type: GraphQLNamedType | null | undefined,
  ): Measure => {
    const total: Measure = { depth: 0, aliases: 0, cost: 0 };
    for (const selection of set.selections) {
      const part =
        selection.kind === Kind.FIELD
          ? field(selection, type)
          : selection.kind === Kind.INLINE_FRAGMENT
            ? selectionSet(
                selection.selectionSet,
                selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type,
              )
            : fragment(selection.name.value);
      total.depth = Math.max(total.depth, part.depth);
      total.aliases += part.aliases;
      total.cost += part.cost;
      check(total);
    }
    return total;
  };

  try {
    selectionSet(operation.selectionSet, schema.getRootType(operation.operation));
    return null;
  } catch (error) {
    if (error instanceof LimitExceeded) return limitError(error.message);
    throw error;
  }
}

export function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition.name.value, definition);
    }
  }
  return fragments;
}

/**
 * Depth, alias and cost limits as a validation rule, always on (docs/api.md, "GraphQL"), so a hostile document
 * cannot make the gateway do unbounded work. Page sizes given as variables count as 1 here;
 * `operationLimitError` checks them with the request's values before execution.
 */
export function queryLimitsRule(limits: QueryLimits = DEFAULT_LIMITS): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = fragmentsOf(context.getDocument());
    return {
      OperationDefinition(node) {
        const refusal = measureOperation(context.getSchema(), node, fragments, limits);
        if (refusal) context.reportError(refusal);
        return false; // nothing below needs visiting by this rule
      },
      FragmentDefinition: () => false,
    };
  };
}

const costDependence = new WeakMap<DocumentNode, boolean>();

/**
 * Whether a request's variables can change the document's cost: only a page-size argument
 * (`first`, `per_page`, `limit`) given as a variable does. Otherwise validation (done once
 * per document) already measured exactly what a measure with the variables would. Remembered
 * per parsed document, which the document cache shares across requests.
 */
export function costDependsOnVariables(document: DocumentNode): boolean {
  let depends = costDependence.get(document);
  if (depends === undefined) {
    depends = false;
    visit(document, {
      Argument(node) {
        if (PAGE_SIZE_ARGUMENTS.has(node.name.value) && node.value.kind === Kind.VARIABLE) {
          depends = true;
          return BREAK;
        }
        return undefined;
      },
    });
    costDependence.set(document, depends);
  }
  return depends;
}
