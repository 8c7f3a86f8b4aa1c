import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 33: the payer's customer record a bank provider needs before it opens an account
 * (API.md "Real providers"). `customer_sealed` is the whole record as JSON, sealed with
 * ENCRYPTION_KEY and bound to its onramp (`onramp_customer:<id>`), so only the code that opens an
 * account reads it. What answers show is kept plain beside it, so a read never unseals:
 * `customer_fields`, the names of the fields given (API names, a fixed order), and the last 4
 * digits of the BVN and of the NIN. All four are null together when no record was given; the
 * checks keep the plain columns consistent with each other whoever writes them.
 */
export class Migration20261128170100_onramp_customer extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table onramps
      add column customer_sealed text,
      add column customer_fields text[],
      add column customer_bvn_last4 text,
      add column customer_nin_last4 text,
      add constraint onramps_customer_sealed
        check ((customer_sealed is null) = (customer_fields is null)
               and (customer_sealed is null or customer_sealed like 'enc:v1:%')),
      add constraint onramps_customer_fields
        check (cardinality(customer_fields) between 1 and 5
               and customer_fields <@ array['first_name', 'last_name', 'phone', 'bvn', 'nin']),
      add constraint onramps_customer_last4
        check ((customer_bvn_last4 is null) = not coalesce('bvn' = any(customer_fields), false)
               and (customer_nin_last4 is null) = not coalesce('nin' = any(customer_fields), false)
               and customer_bvn_last4 ~ '^[0-9]{4}$' and customer_nin_last4 ~ '^[0-9]{4}$');`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table onramps
      drop column customer_nin_last4,
      drop column customer_bvn_last4,
      drop column customer_fields,
      drop column customer_sealed;`);
  }
}
