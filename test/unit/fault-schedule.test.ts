import { planFaults, type FaultPlan } from '../faults/fault-schedule';

const PLAN: Omit<FaultPlan, 'seed'> = {
  loadMs: 180_000,
  gateways: 3,
  runners: 2,
  killEveryMs: [15_000, 30_000],
  chainStopMs: 20_000,
  reorgs: 2,
  reorgDepth: [2, 4],
};

describe('the fault run schedule', () => {
  it('is the same for the same seed and differs for another', () => {
    expect(planFaults({ ...PLAN, seed: 7 })).toEqual(planFaults({ ...PLAN, seed: 7 }));
    expect(planFaults({ ...PLAN, seed: 7 })).not.toEqual(planFaults({ ...PLAN, seed: 8 }));
  });

  it.each([1, 2, 3, 99, 123456, 1061284916])(
    'seed %i: every fault the issue asks for, inside the load',
    (seed) => {
      const faults = planFaults({ ...PLAN, seed });
      const kinds = faults.map((f) => f.kind);
      expect(kinds.filter((k) => k === 'postgres-restart')).toHaveLength(1);
      expect(kinds.filter((k) => k === 'chain-stop')).toHaveLength(1);
      const reorgs = faults.filter((f) => f.kind === 'reorg');
      expect(reorgs).toHaveLength(2);
      expect(new Set(reorgs.map((f) => f.kind === 'reorg' && f.chain)).size).toBe(1);
      const stopped = faults.find((f) => f.kind === 'chain-stop');
      expect(
        reorgs.every(
          (f) => f.kind === 'reorg' && stopped?.kind === 'chain-stop' && f.chain !== stopped.chain,
        ),
      ).toBe(true);
      for (const f of faults) {
        expect(f.atMs).toBeGreaterThan(0);
        expect(f.atMs).toBeLessThan(PLAN.loadMs * 0.9);
        if (f.kind === 'kill') {
          expect(f.index).toBeLessThan(f.role === 'gateway' ? PLAN.gateways : PLAN.runners);
        }
        if (f.kind === 'reorg') expect(f.depth).toBeGreaterThanOrEqual(2);
      }
      // Kills every 15-30 s over the load: 5 to 10 of them in 162 s.
      const kills = faults.filter((f) => f.kind === 'kill');
      expect(kills.length).toBeGreaterThanOrEqual(5);
      expect(kills.length).toBeLessThanOrEqual(10);
      for (let i = 1; i < kills.length; i += 1) {
        const gap = kills[i].atMs - kills[i - 1].atMs;
        expect(gap).toBeGreaterThanOrEqual(15_000);
        expect(gap).toBeLessThanOrEqual(30_000);
      }
      expect(faults.map((f) => f.atMs)).toEqual(
        [...faults.map((f) => f.atMs)].sort((a, b) => a - b),
      );
    },
  );
});
