/**
 * Hostile GraphQL documents for the limit tests. A fragment bomb: `fragments` fragments on
 * the root type, each spreading the next `spreads` times, the last selecting `leaf`; expanded,
 * it is spreads^(fragments - 1) copies of the leaf.
 */
export function fragmentBomb(options: {
  fragments: number;
  spreads: number;
  leaf?: string;
  rootType?: string;
}): string {
  const root = options.rootType ?? 'Query';
  const lines = ['query Bomb { ...F0 }'];
  for (let i = 0; i < options.fragments; i += 1) {
    const body =
      i < options.fragments - 1
        ? Array.from({ length: options.spreads }, () => `...F${i + 1}`).join(' ')
        : (options.leaf ?? '__typename');
    lines.push(`fragment F${i} on ${root} { ${body} }`);
  }
  return lines.join('\n');
}

/** Twenty aliases of a full page of deposits with each one's history (issue 17, case 2). */
export function aliasedDepositPages(aliases = 20, first = 100): string {
  const pages = Array.from(
    { length: aliases },
    (_, i) => `p${i}: deposits(first: ${first}) { edges { node { statusHistory { status } } } }`,
  );
  return `{ ${pages.join('\n')} }`;
}
