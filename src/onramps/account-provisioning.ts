import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { BankProviderRegistry } from '../adapters/bank/bank-providers';
import type { BankProvider, ProvisionedAccount } from '../adapters/bank/bank-provider';
import { DomainError, ErrorCode } from '../domain/errors';
import type { OnrampCustomer } from '../domain/onramp-customer';
import type {
  AllocatedAccount,
  PooledProvider,
  VirtualAccountService,
} from './virtual-account.service';

/** What the onramp's account will be: from the pool (in the transaction) or already opened. */
export type PreparedAccount =
  | { provider: PooledProvider; pooled: true }
  | { provider: string; pooled: false; account: ProvisionedAccount };

export interface AccountOwner {
  onrampId: string;
  email: string;
  accountName: string;
  customer: OnrampCustomer | null;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Chooses the bank provider of a new onramp's account: the first in `BANK_PROVIDERS` that has
 * the customer fields it needs and is not cooling down after a failure; when its account
 * creation fails, the next one (failover). Providers cooling down are tried last rather than
 * never, so a blip on every provider at once does not refuse onramps for a whole cooldown.
 *
 * `prepare` runs before the database transaction (a provider's HTTP call must not hold one);
 * `assign` runs inside it.
 */
export class AccountProvisioning {
  constructor(
    private readonly providers: BankProviderRegistry,
    private readonly pool: VirtualAccountService,
    private readonly log?: Logger,
  ) {}

  async prepare(owner: AccountOwner): Promise<PreparedAccount> {
    const customer = { email: owner.email, ...(owner.customer ?? {}) };
    const missing = new Set<string>();
    const eligible: BankProvider[] = [];
    for (const provider of this.providers.ordered) {
      const lacking = provider.missingCustomerFields(customer);
      if (lacking.length === 0) eligible.push(provider);
      else for (const field of lacking) missing.add(field);
    }
    if (eligible.length === 0) {
      throw new DomainError(
        ErrorCode.MissingParameter,
        `Missing required parameter: ${[...missing].join(', ')}`,
        'No configured bank provider can open an account without these customer fields',
        422,
      );
    }
    const ordered = [
      ...eligible.filter((p) => this.providers.isAvailable(p.name)),
      ...eligible.filter((p) => !this.providers.isAvailable(p.name)),
    ];
    for (const provider of ordered) {
      if (provider.pooled) return { provider: provider.name as PooledProvider, pooled: true };
      try {
        const account = await provider.openAccount({
          reference: owner.onrampId,
          accountName: owner.accountName,
          customer,
        });
        this.providers.markHealthy(provider.name);
        return { provider: provider.name, pooled: false, account };
      } catch (error) {
        this.providers.markFailed(provider.name, messageOf(error));
        this.log?.warn(
          { provider: provider.name, onrampId: owner.onrampId, reason: messageOf(error) },
          'bank provider could not open an account; trying the next',
        );
      }
    }
    throw new DomainError(
      ErrorCode.ServiceUnavailable,
      'No bank provider could open an account right now; retry shortly',
    );
  }

  /** Inside the creation transaction: the pool's number, or the provider's account recorded. */
  async assign(
    tx: EntityManager,
    onrampId: string,
    prepared: PreparedAccount,
  ): Promise<AllocatedAccount> {
    if (prepared.pooled) return this.pool.allocate(tx, onrampId, prepared.provider);
    await this.pool.record(tx, onrampId, {
      ...prepared.account,
      provider: prepared.provider,
    });
    return prepared.account;
  }
}
