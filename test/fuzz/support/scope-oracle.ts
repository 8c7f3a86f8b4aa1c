import {
  getNamedType,
  isObjectType,
  Kind,
  parse,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Violation } from './oracle';

/** The fuzzers' restricted keys (world.ts) and their scopes, by credential label. */
export const RESTRICTED_SCOPES: Readonly<Record<string, readonly string[]>> = {
  'A restricted key': ['deposits:read', 'rates:read'],
  'A balance key': ['balance:read'],
};

/**
 * Which scopes read each kind of data through REST (API.md's routes), written out here apart
 * from the gateway's own tables (src/api/graphql/field-scopes.ts), so that a gap in those is a
 * failure here. A type not matched is data only `all` reads (keys, settings, links).
 */
const READABLE_WITH: Array<[RegExp, readonly string[] | 'anyone']> = [
  [/^PageInfo$/, 'anyone'],
  [/^Rate$/, ['rates:read']],
  // The sandbox's simulateDeposit / simulateReversal answer the deposit, as their REST twin.
  [/^(Deposit\w*|SettledVolumeDay)$/, ['deposits:read', 'sandbox:write']],
  [/^(Onramp\w*|CreatedOnramp|VirtualAccount|Settlement)$/, ['onramps:read', 'onramps:write']],
  [/^(Merchant|Balance)$/, ['balance:read']],
  [/^Withdrawal\w*$/, ['balance:read', 'withdrawals:write']],
  [/^(Webhook\w*|DeletedWebhookEndpoint)$/, ['webhooks:write']],
  [/^SandboxScenario$/, ['sandbox:write']],
];

function readableWith(typeName: string): readonly string[] | 'anyone' {
  return READABLE_WITH.find(([pattern]) => pattern.test(typeName))?.[1] ?? [];
}

/**
 * Every non-null object in `data` that a key with `scopes` may not read, at any depth: the
 * document is walked beside the answer (aliases, fragments, inline fragments), so each value
 * is known by its schema type wherever it appears.
 */
export function scopeViolations(
  schema: GraphQLSchema,
  query: string | undefined,
  operationName: string | undefined,
  data: unknown,
  scopes: readonly string[],
): Violation[] {
  if (typeof query !== 'string' || data === null || typeof data !== 'object') return [];
  let operations: OperationDefinitionNode[];
  const fragments = new Map<string, FragmentDefinitionNode>();
  try {
    const document = parse(query);
    operations = document.definitions.filter(
      (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
    );
    for (const d of document.definitions) {
      if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    }
  } catch {
    return []; // a document that does not parse has no data
  }
  const operation =
    operations.length === 1 && !operationName
      ? operations[0]
      : operations.find((o) => o.name?.value === operationName);
  if (!operation) return [];
  const root = schema.getRootType(operation.operation);
  if (!root) return [];
  const violations: Violation[] = [];

  /** The field nodes of `sets` answering to each response key, through fragments. */
  const fieldsByKey = (sets: readonly SelectionSetNode[], seen = new Set<string>()) => {
    const byKey = new Map<string, FieldNode[]>();
    const visit = (set: SelectionSetNode) => {
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          const key = selection.alias?.value ?? selection.name.value;
          byKey.set(key, [...(byKey.get(key) ?? []), selection]);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          visit(selection.selectionSet);
        } else {
          const fragment = fragments.get(selection.name.value);
          if (fragment && !seen.has(fragment.name.value)) {
            seen.add(fragment.name.value);
            visit(fragment.selectionSet);
          }
        }
      }
    };
    sets.forEach(visit);
    return byKey;
  };

  const walk = (
    value: unknown,
    type: GraphQLObjectType,
    sets: readonly SelectionSetNode[],
    path: string,
  ): void => {
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      value.forEach((item, i) => walk(item, type, sets, `${path}.${i}`));
      return;
    }
    const allowed = readableWith(type.name);
    if (allowed !== 'anyone' && !allowed.some((scope) => scopes.includes(scope))) {
      violations.push({
        rule: 'scope-at-depth',
        detail: `${path || '(root)'}: ${type.name} shown to a key with ${scopes.join(', ')}`,
      });
      return;
    }
    const byKey = fieldsByKey(sets);
    for (const [key, child] of Object.entries(value)) {
      const nodes = byKey.get(key);
      const field = nodes && type.getFields()[nodes[0].name.value];
      const named = field && getNamedType(field.type);
      if (!named || !isObjectType(named)) continue;
      const childSets = nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
      walk(child, named, childSets, path ? `${path}.${key}` : key);
    }
  };

  // The root type itself is no one's data: its fields are what is checked.
  const byKey = fieldsByKey([operation.selectionSet]);
  for (const [key, child] of Object.entries(data)) {
    const nodes = byKey.get(key);
    const field = nodes && root.getFields()[nodes[0].name.value];
    const named = field && getNamedType(field.type);
    if (!named || !isObjectType(named)) continue;
    walk(
      child,
      named,
      nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : [])),
      key,
    );
  }
  return violations;
}
