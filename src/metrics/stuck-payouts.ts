import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { Clock } from '../clock';
import { CHAINS } from '../domain/assets';
import { OPEN_PAYOUT_STATUSES, STUCK_PAYOUTS_SQL } from '../payouts';
import { cachedFor, scrapeQuery } from './scrape-query';

interface StuckRow {
  chain: string;
  status: string;
  kind: string;
  count: string | number;
  oldest: Date | string;
}

const KINDS = ['deposit', 'withdrawal'] as const;

/**
 * `onramp_payouts_stuck{chain, status, kind}`: payouts still PENDING (not signed) or SIGNED
 * (sent, not mined) more than PAYOUT_STUCK_ALERT_SECONDS after they were created; `kind` is
 * `deposit` (an AUTO_WITHDRAW deposit's) or `withdrawal` (a merchant's; its payout stands for
 * it). Every chain, status and kind is present (0 when none). And
 * `onramp_payouts_stuck_oldest_seconds{chain}`: the age of the oldest of them (0 when none).
 */
export function registerStuckPayoutGauges(
  registry: Registry,
  orm: MikroORM,
  log: Logger,
  clock: Clock,
  options: { stuckSeconds: number; cacheMs: number },
): void {
  const load = cachedFor(options.cacheMs, () =>
    scrapeQuery<StuckRow>(orm, log, 'onramp_payouts_stuck', STUCK_PAYOUTS_SQL, [
      new Date(clock.now().getTime() - options.stuckSeconds * 1000),
    ]),
  );
  new Gauge({
    name: 'onramp_payouts_stuck',
    help: `Payouts not final (PENDING or SIGNED) created more than PAYOUT_STUCK_ALERT_SECONDS (${options.stuckSeconds}) ago.`,
    labelNames: ['chain', 'status', 'kind'] as const,
    registers: [registry],
    async collect() {
      const rows = await load();
      this.reset();
      if (!rows) return;
      for (const chain of CHAINS) {
        for (const status of OPEN_PAYOUT_STATUSES) {
          for (const kind of KINDS) this.set({ chain, status, kind }, 0);
        }
      }
      for (const row of rows) {
        this.set({ chain: row.chain, status: row.status, kind: row.kind }, Number(row.count));
      }
    },
  });
  new Gauge({
    name: 'onramp_payouts_stuck_oldest_seconds',
    help: 'Age of the oldest stuck payout of the chain (0 when none).',
    labelNames: ['chain'] as const,
    registers: [registry],
    async collect() {
      const rows = await load();
      this.reset();
      if (!rows) return;
      const now = clock.now().getTime();
      for (const chain of CHAINS) {
        const oldest = rows
          .filter((row) => row.chain === chain)
          .map((row) => (now - new Date(row.oldest).getTime()) / 1000);
        this.set({ chain }, Math.max(0, ...oldest));
      }
    },
  });
}
