import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 33: a real FX venue (docs/providers-fx.md). Busha takes no client reference and a
 * quote id is its only handle on an order, so each order's quotes and transfer are recorded
 * here, keyed by settlement's client order id, BEFORE the venue is asked to execute: a retry
 * after a crash looks the order up at the venue instead of converting again.
 * - `quote_ids`: every quote asked for the order, oldest first (a quote that expired before it
 *   was executed is replaced by a new one under the same client order id); a transfer of any
 *   of them is the order's.
 * - `lease_holder`/`lease_expires_at`: one process works on an order at a time.
 * - A FILLED order keeps its fill, so settling again after a crash needs no venue call.
 * - A venue transfer fills at most one order.
 */
export class Migration20261128170200_fx_venue_orders extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table fx_venue_orders (
      client_order_id text primary key,
      venue text not null,
      amount_ngn numeric(20, 2) not null check (amount_ngn > 0),
      status text not null default 'NEW'
        check (status in ('NEW', 'QUOTED', 'EXECUTING', 'FILLED', 'CANCELLED')),
      quote_id text,
      quote_expires_at timestamptz,
      quote_ids text[] not null default '{}',
      transfer_id text unique,
      usd_bought numeric(30, 6) check (usd_bought >= 0),
      lease_holder text,
      lease_expires_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      check (status <> 'FILLED' or (usd_bought is not null and transfer_id is not null)),
      check (quote_id is null or quote_id = quote_ids[cardinality(quote_ids)])
    );`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table fx_venue_orders;');
  }
}
