import { Migration } from '@mikro-orm/migrations';

/**
 * Secrets at rest and credential lifetimes.
 *
 * - `idempotency_keys.response_sealed`: the stored response, as the exact bytes sent, sealed
 *   with ENCRYPTION_KEY (`response_body` stays for rows stored before; no new row uses it).
 *   `claim_token`: which claim of a key may complete or release it, so a request whose lease was
 *   taken over cannot overwrite the retry's outcome. `lease_renewed_at`: the running request's
 *   last heartbeat; IN_PROGRESS with no heartbeat for IDEMPOTENCY_LEASE_SECONDS (counted from
 *   `created_at` before the first) means its process died, and a retry takes the key over.
 * - `onramps.closed_at`: when the onramp stopped being ACTIVE (set by a trigger from the
 *   `updated_at` of the change, whatever code makes it), from which the client secret's expiry
 *   is computed. `client_secret_revoked_at`: the merchant revoked the client secret.
 * - Webhook secrets keep their columns: sealed values carry an `enc:v1:` prefix, plaintext
 *   `whsec_` values written before are still read and sealed on the next write or by
 *   `onramp secrets reencrypt`.
 */
export class Migration20261124000900_secrets_at_rest extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table idempotency_keys add column response_sealed text;');
    this.addSql('alter table idempotency_keys add column claim_token text;');
    this.addSql('alter table idempotency_keys add column lease_renewed_at timestamptz;');
    this.addSql('alter table onramps add column closed_at timestamptz;');
    this.addSql('alter table onramps add column client_secret_revoked_at timestamptz;');
    this.addSql(`update onramps set closed_at = updated_at where status <> 'ACTIVE';`);
    this.addSql(`
      create function onramps_closed_at() returns trigger language plpgsql as $$
      begin
        if new.status = 'ACTIVE' then
          new.closed_at := null;
        elsif old.status = 'ACTIVE' or new.closed_at is null then
          new.closed_at := coalesce(new.closed_at, new.updated_at);
        end if;
        return new;
      end $$;`);
    this.addSql(`
      create trigger onramps_closed_at before update of status on onramps
        for each row execute function onramps_closed_at();`);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists onramps_closed_at on onramps;');
    this.addSql('drop function if exists onramps_closed_at();');
    this.addSql('alter table onramps drop column if exists client_secret_revoked_at;');
    this.addSql('alter table onramps drop column if exists closed_at;');
    this.addSql('alter table idempotency_keys drop column if exists lease_renewed_at;');
    this.addSql('alter table idempotency_keys drop column if exists claim_token;');
    this.addSql('alter table idempotency_keys drop column if exists response_sealed;');
  }
}
