// Seeded randomness for tests that pick amounts, orders and moments at random: the seed is
// printed, and `SEED=<n>` replays the same choices (timing of real processes aside).
import { randomInt } from 'node:crypto';

export interface SeededRandom {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
}

/** `SEED` from the environment (a positive integer), or a fresh one. */
export function testSeed(): number {
  const fromEnv = process.env.SEED;
  if (fromEnv === undefined || fromEnv === '') return randomInt(1, 2 ** 31);
  if (!/^[0-9]+$/.test(fromEnv) || Number(fromEnv) < 1 || Number(fromEnv) >= 2 ** 32) {
    throw new Error(`SEED must be an integer from 1 to 2^32 - 1, not "${fromEnv}"`);
  }
  return Number(fromEnv);
}

/** mulberry32: small, fast and good enough to spread test inputs (not for anything secret). */
export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)],
  };
}
