import {
  GraphQLError,
  Kind,
  type ASTVisitor,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';

export interface QueryLimits {
  maxDepth: number;
  maxAliases: number;
  /** Every selected field costs 1; lists multiply nothing here, so this bounds document size. */
  maxFields: number;
}

export const DEFAULT_LIMITS: QueryLimits = { maxDepth: 10, maxAliases: 20, maxFields: 300 };

function limitError(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'INVALID_PARAMETER' } });
}

/**
 * Depth, alias and field-count limits, always on (API.md), so a hostile document cannot make
 * the gateway do unbounded work. Fragments are expanded once each (cycles are already refused
 * by the standard NoFragmentCycles rule).
 */
export function queryLimitsRule(limits: QueryLimits = DEFAULT_LIMITS): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION)
        fragments.set(definition.name.value, definition);
    }
    let aliases = 0;
    let fields = 0;

    const walk = (set: SelectionSetNode, depth: number, seen: Set<string>): number => {
      let deepest = depth;
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          fields += 1;
          if (selection.alias) aliases += 1;
          if (selection.selectionSet)
            deepest = Math.max(deepest, walk(selection.selectionSet, depth + 1, seen));
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          deepest = Math.max(deepest, walk(selection.selectionSet, depth, seen));
        } else {
          const fragment = fragments.get(selection.name.value);
          if (fragment && !seen.has(fragment.name.value)) {
            deepest = Math.max(
              deepest,
              walk(fragment.selectionSet, depth, new Set([...seen, fragment.name.value])),
            );
          }
        }
      }
      return deepest;
    };

    return {
      OperationDefinition(node) {
        const depth = walk(node.selectionSet, 1, new Set());
        if (depth > limits.maxDepth) {
          context.reportError(
            limitError(`Query depth ${depth} exceeds the limit of ${limits.maxDepth}`),
          );
        }
        if (aliases > limits.maxAliases) {
          context.reportError(
            limitError(`${aliases} aliases exceed the limit of ${limits.maxAliases}`),
          );
        }
        if (fields > limits.maxFields) {
          context.reportError(
            limitError(`${fields} fields exceed the limit of ${limits.maxFields}`),
          );
        }
      },
    };
  };
}
