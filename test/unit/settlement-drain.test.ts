import type { EntityManager } from '@mikro-orm/postgresql';
import { SettlementDrain } from '../../src/deposits/settlement-drain';
import type {
  BatchResult,
  DepositSettlementService,
} from '../../src/deposits/deposit-settlement.service';

/** A settlement whose batches claim the scripted counts, each taking one gated step. */
function scriptedSettlement(claims: number[]) {
  let active = 0;
  const state = { calls: 0, maxActive: 0, release: [] as Array<() => void> };
  const settlement = {
    settleBatch: async (): Promise<BatchResult> => {
      state.calls += 1;
      active += 1;
      state.maxActive = Math.max(state.maxActive, active);
      await new Promise<void>((resolve) => state.release.push(resolve));
      active -= 1;
      return {
        claimed: claims.shift() ?? 0,
        outcomes: new Map(),
        deferred: [],
        unapplied: [],
      };
    },
  } as unknown as DepositSettlementService;
  return { settlement, state };
}

const quiet = { info: () => undefined, warn: () => undefined };
const em = () => ({}) as EntityManager;
const tick = () => new Promise((resolve) => setImmediate(resolve));
/** Lets every batch started so far finish, until the drain is idle. */
async function finish(state: { release: Array<() => void> }, run: Promise<void>) {
  let done = false;
  void run.then(() => (done = true));
  while (!done) {
    state.release.splice(0).forEach((release) => release());
    await tick();
  }
}

describe('settlement drain', () => {
  it('wakes during a run are coalesced into one more pass, never a second run at once', async () => {
    const { settlement, state } = scriptedSettlement([3, 0]);
    const drain = new SettlementDrain(settlement, em, quiet, 10);
    const first = drain.wake();
    await tick();
    const more = [drain.wake(), drain.wake(), drain.wake()];
    expect(more.every((p) => p === first)).toBe(true);
    await finish(state, first);
    expect(state.calls).toBe(2);
    expect(state.maxActive).toBe(1);
  });

  it('keeps taking batches while they come back full', async () => {
    const { settlement, state } = scriptedSettlement([10, 10, 4]);
    const drain = new SettlementDrain(settlement, em, quiet, 10);
    await finish(state, drain.wake());
    expect(state.calls).toBe(3);
  });

  it('stop lets the batch in progress finish and takes no more', async () => {
    const { settlement, state } = scriptedSettlement([10, 10, 10]);
    const drain = new SettlementDrain(settlement, em, quiet, 10);
    const run = drain.wake();
    await tick();
    const stopped = drain.stop();
    await finish(state, run);
    await stopped;
    expect(state.calls).toBe(1);
    await drain.wake();
    expect(state.calls).toBe(1);
  });

  it('with a gathering window, wakes within it start one batch after the window, not one each', async () => {
    const { settlement, state } = scriptedSettlement([3]);
    const drain = new SettlementDrain(settlement, em, quiet, 10, 40);
    const first = drain.wake();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(state.calls).toBe(0);
    // Deposits arriving inside the window join the run that has not started yet.
    expect([drain.wake(), drain.wake()].every((p) => p === first)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(state.calls).toBe(1);
    await finish(state, first);
    expect(state.calls).toBe(1);
  });
});
