import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 33: each virtual account records the bank provider that issued it. `sandbox` and
 * `hmac` accounts come from our own NUBAN pool (numbers we mint and reuse after 365 days);
 * `paystack` and `monnify` accounts are opened at the provider, which names them
 * (`provider_account_id`: Paystack's dedicated account id, Monnify's accountReference), and the
 * pool never hands them out again. Every account before this one came from the pool.
 */
export class Migration20261128170000_bank_providers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table virtual_accounts
        add column provider text not null default 'sandbox'
          check (provider in ('sandbox', 'hmac', 'paystack', 'monnify')),
        add column provider_account_id text
          check (provider_account_id is null or length(provider_account_id) between 1 and 200),
        add constraint virtual_accounts_provider_id_check
          check ((provider in ('sandbox', 'hmac')) = (provider_account_id is null));`);
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table virtual_accounts
        drop constraint virtual_accounts_provider_id_check,
        drop column provider_account_id,
        drop column provider;`);
  }
}
