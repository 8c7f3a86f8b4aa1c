import {
  canMove,
  checkMove,
  IllegalTransitionError,
  type TransitionTable,
} from '../../src/domain/transitions';

/**
 * The checks every transition table gets: its statuses are the ones the test names, each move
 * the test lists passes `checkMove` (a new row's first status included, `null` as from), and
 * every other pair of the lifecycle, to the same status included, is refused. The test states
 * the lifecycle itself, so a change to the table that the test does not share fails it.
 */
export function describeLifecycle<S extends string>(
  table: TransitionTable<S>,
  statuses: readonly S[],
  legal: Array<[S | null, S]>,
): void {
  describe(`${table.subject} lifecycle as data`, () => {
    it('has exactly the statuses named here', () => {
      expect(Object.keys(table.moves).sort()).toEqual([...statuses].sort());
    });

    it('starts a new row only in its initial statuses', () => {
      const initial = legal.filter(([from]) => from === null).map(([, to]) => to);
      expect([...table.initial].sort()).toEqual([...initial].sort());
      for (const to of statuses) {
        expect(canMove(table, null, to)).toBe(initial.includes(to));
      }
    });

    it.each(legal)('allows %s -> %s', (from, to) => {
      expect(() => checkMove(table, from, to)).not.toThrow();
    });

    it('refuses every other move, naming both ends', () => {
      const allowed = new Set(legal.map(([from, to]) => `${from}>${to}`));
      let refused = 0;
      for (const from of [null, ...statuses]) {
        for (const to of statuses) {
          if (allowed.has(`${from}>${to}`)) continue;
          refused += 1;
          expect(canMove(table, from, to)).toBe(false);
          expect(() => checkMove(table, from, to)).toThrow(
            new IllegalTransitionError(table.subject, from, to),
          );
        }
      }
      expect(refused).toBe((statuses.length + 1) * statuses.length - legal.length);
    });
  });
}
