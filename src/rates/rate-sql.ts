import { TEXT_ARRAY } from '../db/text-array';

/**
 * SQL fragments over the `rates` table, for statements that other modules compose (a deposit's
 * arrival read, the settlement claim): the table stays this module's to change, and those
 * statements stay one round trip. Each fragment says which `?` parameters it adds, in order.
 */

/** Scalar: the newest rate to `toSql` valid at the `?` parameter (a timestamp), or null. */
export function newestValidRateIdSql(toSql: string): string {
  return `(select r.id from rates r
            where r.to_currency = ${toSql} and r.expires_at > ?
            order by r.created_at desc limit 1)`;
}

/** Scalar: one column of the rate with id `idSql`, as text (no parameters). */
export function rateColumnSql(column: 'market_rate' | 'inverse_rate', idSql: string): string {
  return `(select r.${column}::text from rates r where r.id = ${idSql})`;
}

/**
 * A `left join lateral` body giving the rate a deposit is priced at, as columns
 * pricing_rate_id, to_currency, inverse_rate, min_deposit_ngn, rate_expires_at: the locked rate
 * `rateIdSql` if there is one, else the newest to `toSql` valid at the `?` parameter, else the
 * newest to `toSql` at all.
 */
export function pricingRateLateralSql(rateIdSql: string, toSql: string): string {
  return `(
  select p.id as pricing_rate_id, p.to_currency, p.inverse_rate::text as inverse_rate,
         p.min_deposit_ngn::text as min_deposit_ngn, p.expires_at as rate_expires_at
    from (
      select 1 as pick, r1.* from rates r1 where r1.id = ${rateIdSql}
      union all
      (select 2, r2.* from rates r2
        where ${rateIdSql} is null and r2.to_currency = ${toSql} and r2.expires_at > ?
        order by r2.created_at desc limit 1)
      union all
      (select 3, r3.* from rates r3
        where ${rateIdSql} is null and r3.to_currency = ${toSql}
        order by r3.created_at desc limit 1)
    ) p order by p.pick limit 1)`;
}

/**
 * The newest rate to each quote currency of the `?` parameter (a TEXT_ARRAY of currencies):
 * one index probe each (`rates_latest_idx`), whatever the table's size. Columns to_currency,
 * from_currency, created_at, expires_at; a currency never quoted has no row. For the rate-age
 * gauges, read at scrape time.
 */
export const NEWEST_RATE_PER_CURRENCY_SQL = `
  select c.to_currency, r.from_currency, r.created_at, r.expires_at
    from unnest(${TEXT_ARRAY}) as c(to_currency)
    cross join lateral (
      select from_currency, created_at, expires_at from rates
       where to_currency = c.to_currency order by created_at desc limit 1) r`;
