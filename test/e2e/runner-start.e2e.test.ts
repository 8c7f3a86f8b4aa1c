import { createTestDatabase } from '../support/db';
import { baseEnv, startRunner, type RunningProcess } from '../support/stack';

/**
 * Agenda's PostgreSQL store sets up its table, function and trigger when a runner connects;
 * runners started at the same moment must all come up (they connect one at a time).
 */
describe('job runners starting together', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])(
    'three runners on a fresh database all become ready (round %i)',
    async () => {
      const env = baseEnv(await createTestDatabase());
      const started = await Promise.allSettled([
        startRunner(env),
        startRunner(env),
        startRunner(env),
      ]);
      const running = started
        .filter((s): s is PromiseFulfilledResult<RunningProcess> => s.status === 'fulfilled')
        .map((s) => s.value);
      await Promise.all(running.map((r) => r.stop()));
      const failures = started.filter((s) => s.status === 'rejected');
      expect(
        failures.map((f) => String((f as PromiseRejectedResult).reason).slice(0, 400)),
      ).toEqual([]);
    },
  );
});
