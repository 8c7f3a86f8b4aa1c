import { Migration } from '@mikro-orm/migrations';

/**
 * The withdrawal address book (issue 21): addresses a merchant may withdraw to, each usable
 * from `active_at` (its creation plus WITHDRAWAL_ADDRESS_DELAY_SECONDS), so a leaked key cannot
 * send the balance to a fresh address before the merchant hears of it. Status is never stored:
 * it is `active_at <= now` on the injected clock. `activated_at` records when the
 * `withdrawal_address.activated` event was written (once). A deleted entry keeps its row
 * (`deleted_at`) for the audit trail; only one live entry per merchant, chain and address.
 * `merchants.require_address_book`: null means the deployment's default (on in production).
 */
export class Migration20261125100300_withdrawal_addresses extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table withdrawal_addresses (
        id text primary key,
        merchant_id text not null references merchants(id),
        chain text not null check (chain in ('BASE', 'ETHEREUM', 'POLYGON')),
        address text not null,
        label text,
        created_at timestamptz not null,
        active_at timestamptz not null,
        activated_at timestamptz,
        deleted_at timestamptz
      );`);
    this.addSql(`
      create unique index withdrawal_addresses_live_once
        on withdrawal_addresses (merchant_id, chain, address) where deleted_at is null;`);
    this.addSql(`
      create index withdrawal_addresses_merchant_idx
        on withdrawal_addresses (merchant_id, created_at desc, id desc) where deleted_at is null;`);
    // The activation job's scan: only entries whose event is still owed.
    this.addSql(`
      create index withdrawal_addresses_activation_due
        on withdrawal_addresses (active_at) where activated_at is null and deleted_at is null;`);
    this.addSql('alter table merchants add column require_address_book boolean;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table merchants drop column require_address_book;');
    this.addSql('drop table if exists withdrawal_addresses;');
  }
}
