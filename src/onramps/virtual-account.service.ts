import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { nubanFor } from '../domain/nuban';

export interface IssuingBank {
  code: string;
  name: string;
}

export interface AllocatedAccount {
  accountNumber: string;
  bankCode: string;
  bankName: string;
  /** The name the provider gave the account (absent: ours, for pool accounts). */
  accountName?: string;
}

/** The pool's providers: their numbers are ours to mint and reuse. */
export type PooledProvider = 'sandbox' | 'hmac';

/** An account a bank provider opened (Paystack, Monnify), to record for an onramp. */
export interface ProviderAccount extends AllocatedAccount {
  provider: string;
  providerAccountId: string;
}

/**
 * Reusable candidates tried before minting. A candidate goes stale only when another
 * allocation committed it between our pick's snapshot and our lock, and each stale one is
 * out of every later pick, so this bound is a safety valve, not a tuning knob.
 */
const REUSE_ATTEMPTS = 16;

// The number of this bank whose last hand-out cooled down first (never-used numbers before
// all). SKIP LOCKED spreads concurrent allocations over different rows instead of queueing
// them on one; the lock is what every allocator of a reused number must hold.
const PICK_REUSABLE = `
  select va.account_number
    from virtual_accounts va
    cross join lateral (
      select max(a.cooldown_until) as free_since
        from virtual_account_assignments a
       where a.account_number = va.account_number
    ) last
   where va.bank_code = ? and va.provider in ('sandbox', 'hmac')
     and (last.free_since is null or last.free_since <= ?)
   order by last.free_since nulls first, va.account_number
   limit 1
   for update of va skip locked`;

const STILL_COOLING = `
  select 1 from virtual_account_assignments
   where account_number = ? and cooldown_until > ?
   limit 1`;

/**
 * Hands out NUBAN virtual account numbers and ends the hand-outs. The exclusion constraint
 * `virtual_account_not_reused_within_365_days` is the guarantee; the choice made here is the
 * fast path that keeps concurrent allocations from running into it.
 */
export class VirtualAccountService {
  constructor(
    private readonly clock: Clock,
    private readonly bank: IssuingBank,
  ) {
    if (!/^[0-9]{3}$/.test(bank.code)) {
      throw new RangeError(`issuing bank code must be 3 digits: ${bank.code}`);
    }
  }

  /** Must run inside the caller's transaction (em.transactional): hands out a number for onrampId. */
  async allocate(
    tx: EntityManager,
    onrampId: string,
    provider: PooledProvider = 'sandbox',
  ): Promise<AllocatedAccount> {
    const now = this.clock.now();
    const accountNumber = (await this.reusable(tx, now)) ?? (await this.mint(tx, now, provider));
    await this.assign(tx, accountNumber, onrampId, now);
    return { accountNumber, bankCode: this.bank.code, bankName: this.bank.name };
  }

  /**
   * Must run inside the caller's transaction: records an account a provider opened and hands
   * it to onrampId. The same number from another provider is refused: a deposit to it could
   * not be told apart.
   */
  async record(tx: EntityManager, onrampId: string, account: ProviderAccount): Promise<void> {
    const now = this.clock.now();
    await run(
      tx,
      `insert into virtual_accounts (account_number, bank_code, created_at, provider, provider_account_id)
       values (?, ?, ?, ?, ?) on conflict (account_number) do nothing`,
      [account.accountNumber, account.bankCode, now, account.provider, account.providerAccountId],
    );
    const [row] = await run<{ provider: string }>(
      tx,
      'select provider from virtual_accounts where account_number = ?',
      [account.accountNumber],
    );
    if (row.provider !== account.provider) {
      throw new Error(
        `${account.provider} issued account ${account.accountNumber}, which ${row.provider} holds`,
      );
    }
    await this.assign(tx, account.accountNumber, onrampId, now);
  }

  private async assign(
    tx: EntityManager,
    accountNumber: string,
    onrampId: string,
    now: Date,
  ): Promise<void> {
    // The trigger sets cooldown_until (infinity while held). A conflicting hand-out raises
    // 23P01 here, which aborts the caller's transaction: no savepoint, the caller retries.
    await run(
      tx,
      'insert into virtual_account_assignments (account_number, onramp_id, assigned_at) values (?, ?, ?)',
      [accountNumber, onrampId, now],
    );
  }

  /** Ends the hand-out at clock.now(); idempotent (a released assignment stays as it was). */
  async release(tx: EntityManager, onrampId: string): Promise<void> {
    // greatest(): a clock behind the allocating process's must not fail the release on the
    // released_at >= assigned_at check; the cooldown then runs from the hand-out itself.
    const released = await run(
      tx,
      `update virtual_account_assignments set released_at = greatest(?::timestamptz, assigned_at)
        where onramp_id = ? and released_at is null
        returning id`,
      [this.clock.now(), onrampId],
    );
    if (released.length > 0) return;
    const known = await run(tx, 'select 1 from virtual_account_assignments where onramp_id = ?', [
      onrampId,
    ]);
    if (known.length === 0) throw new Error(`no virtual account was allocated to ${onrampId}`);
  }

  private async reusable(tx: EntityManager, now: Date): Promise<string | undefined> {
    for (let attempt = 0; attempt < REUSE_ATTEMPTS; attempt++) {
      const [row] = await run<{ account_number: string }>(tx, PICK_REUSABLE, [this.bank.code, now]);
      if (!row) return undefined;
      // The pick saw the statement's snapshot; an allocation that committed this number after
      // it was taken released the row lock to us. This new statement (READ COMMITTED) sees it.
      // The row stays locked by us, and the next pick's snapshot excludes it anyway.
      const cooling = await run(tx, STILL_COOLING, [row.account_number, now]);
      if (cooling.length === 0) return row.account_number;
    }
    return undefined;
  }

  private async mint(tx: EntityManager, now: Date, provider: PooledProvider): Promise<string> {
    // One sequence for every bank code: a serial is never minted twice, so numbers of
    // different banks cannot collide on the account_number primary key.
    const [{ serial }] = await run<{ serial: string }>(
      tx,
      "select nextval('virtual_account_serial') as serial",
      [],
    );
    const accountNumber = nubanFor(this.bank.code, Number(serial));
    await run(
      tx,
      'insert into virtual_accounts (account_number, bank_code, created_at, provider) values (?, ?, ?, ?)',
      [accountNumber, this.bank.code, now, provider],
    );
    return accountNumber;
  }
}

/** Runs on the transaction's own connection (see src/db/locks.ts): row locks must hold. */
async function run<T = Record<string, unknown>>(
  tx: EntityManager,
  sql: string,
  params: unknown[],
): Promise<T[]> {
  const ctx = tx.getTransactionContext();
  if (!ctx) throw new Error('VirtualAccountService must run inside em.transactional');
  return tx.getConnection().execute<T[]>(sql, params, 'all', ctx);
}
