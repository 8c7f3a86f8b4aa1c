import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';

/**
 * The stand-in database behind the metrics' scrape-time gauges in the unit tests (the e2e suite
 * scrapes real processes over a real database): one that answers, one that fails, one that
 * hangs, by what each is asked.
 */
export type Answer = (sql: string) => unknown[] | Promise<unknown[]>;

export function fakeOrm(answer: Answer): MikroORM {
  const tx = {
    getTransactionContext: () => ({}),
    getConnection: () => ({
      execute: async (sql: string) => (sql.startsWith('set local') ? [] : answer(sql)),
    }),
  };
  return {
    em: {
      fork: () => ({
        transactional: (fn: (t: typeof tx) => unknown) => fn(tx),
        getConnection: () => ({ execute: async (sql: string) => answer(sql) }),
      }),
    },
  } as unknown as MikroORM;
}

/** The clock of the runner's registries: ages are computed from it. */
export const NOW = new Date('2026-11-22T12:00:00Z');

export const database: Answer = (sql) => {
  if (sql.includes('from deposits')) {
    return [
      { status: 'SETTLED', count: '7' },
      { status: 'PENDING_FX', count: '2' },
    ];
  }
  if (sql.includes('from agenda_jobs')) {
    return [{ name: 'settle-deposit', depth: '3', oldest: new Date(NOW.getTime() - 1_500) }];
  }
  if (sql.includes('from rates')) {
    return [
      {
        to_currency: 'USDC',
        from_currency: 'NGN',
        created_at: new Date(NOW.getTime() - 42_000),
        expires_at: new Date(NOW.getTime() + 60_000),
      },
    ];
  }
  if (sql.includes('from payouts')) {
    return [
      {
        chain: 'BASE',
        status: 'SIGNED',
        kind: 'withdrawal',
        count: '2',
        oldest: new Date(NOW.getTime() - 4_000_000),
      },
    ];
  }
  if (sql.includes('from webhook_deliveries')) {
    return [{ pending: '5', due: '1', oldest: new Date(NOW.getTime() - 7_000) }];
  }
  if (sql.includes('from chain_status')) {
    return [
      { chain: 'BASE', healthy: true },
      { chain: 'POLYGON', healthy: false },
    ];
  }
  throw new Error(`unexpected query ${sql}`);
};

export function quietLog() {
  const warn = jest.fn();
  return { log: { warn } as unknown as Logger, warn };
}
