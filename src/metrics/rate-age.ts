import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { Clock } from '../clock';
import { textArray } from '../db/text-array';
import { QUOTE_CURRENCIES } from '../domain/assets';
import { NEWEST_RATE_PER_CURRENCY_SQL } from '../rates';
import { cachedFor, scrapeQuery } from './scrape-query';

interface NewestRate {
  to_currency: string;
  from_currency: string;
  created_at: Date | string;
  expires_at: Date | string;
}

/**
 * `onramp_rate_age_seconds{from, to}`: seconds since the newest rate of the pair was
 * published (at this scrape, by the process's clock); and `onramp_rate_valid{from, to}`: 1
 * while that rate has not expired, else 0 (quotes and unlocked deposits then have no rate).
 * A pair never quoted has `onramp_rate_valid` 0 and no age. Rates are published every
 * RATE_INTERVAL_SECONDS and valid RATE_TTL_SECONDS: an age past a few intervals means
 * publication stopped (rate sources down, or no runner), and it pages before validity ends.
 */
export function registerRateAgeGauges(
  registry: Registry,
  orm: MikroORM,
  log: Logger,
  clock: Clock,
  cacheMs: number,
): void {
  const load = cachedFor(cacheMs, () =>
    scrapeQuery<NewestRate>(orm, log, 'onramp_rate_age_seconds', NEWEST_RATE_PER_CURRENCY_SQL, [
      textArray(QUOTE_CURRENCIES),
    ]),
  );
  const fill = async (
    gauge: Gauge<'from' | 'to'>,
    pick: (rate: NewestRate, now: Date) => number,
  ) => {
    const rows = await load();
    gauge.reset();
    if (!rows) return;
    const now = clock.now();
    for (const row of rows)
      gauge.set({ from: row.from_currency, to: row.to_currency }, pick(row, now));
    return rows;
  };
  new Gauge({
    name: 'onramp_rate_age_seconds',
    help: 'Seconds since the newest rate of the pair was published.',
    labelNames: ['from', 'to'] as const,
    registers: [registry],
    async collect() {
      await fill(this, (rate, now) =>
        Math.max(0, (now.getTime() - new Date(rate.created_at).getTime()) / 1000),
      );
    },
  });
  new Gauge({
    name: 'onramp_rate_valid',
    help: '1 while the newest rate of the pair has not expired, else 0.',
    labelNames: ['from', 'to'] as const,
    registers: [registry],
    async collect() {
      const rows = await fill(this, (rate, now) =>
        new Date(rate.expires_at).getTime() > now.getTime() ? 1 : 0,
      );
      if (!rows) return;
      const quoted = new Set(rows.map((row) => row.to_currency));
      for (const to of QUOTE_CURRENCIES) if (!quoted.has(to)) this.set({ from: 'NGN', to }, 0);
    },
  });
}
