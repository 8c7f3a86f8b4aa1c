import type { Clock } from '../../clock';
import type { Config } from '../../config';
import type { BankProvider, BankProviderName, ProviderHealth } from './bank-provider';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BankTransfers, OutboundReturn, ReturnOutcome } from './bank-transfers';
import { paystackProviderFromConfig } from './paystack/paystack-provider';
import { monnifyProviderFromConfig } from './monnify';
import { PooledBankProvider } from './pooled-bank-provider';

/** Builds one external provider from the configuration (its settings were validated). */
export type BankProviderFactory = (config: Config, clock: Clock) => BankProvider;

export interface ProviderState extends ProviderHealth {
  name: BankProviderName;
  /** When it was last checked (null: not yet). */
  checkedAt: Date | null;
}

/**
 * The configured providers in `BANK_PROVIDERS` order, with what each last showed of its
 * health. A provider that failed (an account creation, a health check) is passed over for
 * `BANK_PROVIDER_COOLDOWN_SECONDS`; the next one in the list serves meanwhile (failover).
 */
export class BankProviderRegistry {
  private readonly byName: Map<BankProviderName, BankProvider>;
  private readonly failedUntil = new Map<BankProviderName, number>();
  private readonly states = new Map<BankProviderName, ProviderState>();

  constructor(
    readonly ordered: readonly BankProvider[],
    private readonly clock: Clock,
    private readonly cooldownMs: number,
  ) {
    this.byName = new Map(ordered.map((provider) => [provider.name, provider]));
  }

  get(name: string): BankProvider | undefined {
    return this.byName.get(name as BankProviderName);
  }

  /** Whether the provider is out of its cooldown (never failed, or long enough ago). */
  isAvailable(name: BankProviderName): boolean {
    return (this.failedUntil.get(name) ?? 0) <= this.clock.now().getTime();
  }

  markFailed(name: BankProviderName, detail: string): void {
    const now = this.clock.now();
    this.failedUntil.set(name, now.getTime() + this.cooldownMs);
    this.states.set(name, { name, ok: false, detail, checkedAt: now });
  }

  markHealthy(name: BankProviderName): void {
    this.failedUntil.delete(name);
    this.states.set(name, { name, ok: true, checkedAt: this.clock.now() });
  }

  /** Asks every provider for its health now; a failure starts its cooldown. */
  async checkAll(): Promise<ProviderState[]> {
    await Promise.all(
      this.ordered.map(async (provider) => {
        let health: ProviderHealth;
        try {
          health = await provider.health();
        } catch (error) {
          health = { ok: false, detail: error instanceof Error ? error.message : String(error) };
        }
        if (health.ok) this.markHealthy(provider.name);
        else this.markFailed(provider.name, health.detail ?? 'unhealthy');
      }),
    );
    return this.report();
  }

  /** The last known state of each provider, for `/health`. */
  report(): ProviderState[] {
    return this.ordered.map(
      (provider) =>
        this.states.get(provider.name) ?? {
          name: provider.name,
          ok: this.isAvailable(provider.name),
          checkedAt: null,
        },
    );
  }
}

/** External providers' factories; each module registers its own here. */
export const EXTERNAL_PROVIDER_FACTORIES: Partial<Record<BankProviderName, BankProviderFactory>> = {
  paystack: paystackProviderFromConfig,
  monnify: (config, clock) => monnifyProviderFromConfig(config, clock),
};

/** Builds the providers `BANK_PROVIDERS` names; `sandboxTransfers` is the sandbox bank. */
export function bankProvidersFromConfig(
  config: Config,
  clock: Clock,
  sandboxTransfers: BankTransfers,
): BankProviderRegistry {
  const providers = config.BANK_PROVIDERS.map((name): BankProvider => {
    if (name === 'sandbox' || name === 'hmac') {
      return new PooledBankProvider({
        name,
        clock,
        ...(config.BANK_WEBHOOK_SECRET ? { notificationSecret: config.BANK_WEBHOOK_SECRET } : {}),
        // In production the hmac provider has no way to send money back (see its class).
        ...(name === 'sandbox' || config.ONRAMP_ENV === 'sandbox'
          ? { transfers: sandboxTransfers }
          : {}),
      });
    }
    const factory = EXTERNAL_PROVIDER_FACTORIES[name];
    if (!factory) throw new Error(`bank provider ${name} is not built into this version`);
    return factory(config, clock);
  });
  return new BankProviderRegistry(providers, clock, config.BANK_PROVIDER_COOLDOWN_SECONDS * 1000);
}

/**
 * Returns go out through the provider that received the deposit. A deposit to a provider no
 * longer configured cannot be sent by us: it is refused (RETURN_FAILED), the operator's to send.
 */
export class ProviderRoutedTransfers implements BankTransfers {
  readonly name = 'providers';

  constructor(
    private readonly providers: BankProviderRegistry,
    /**
     * The sandbox bank, for pool accounts of a pooled provider since removed from the list
     * (sandbox deployments only; null in production, where no simulated bank may send).
     */
    private readonly poolFallback: BankTransfers | null,
  ) {}

  sendReturn(transfer: OutboundReturn, em: EntityManager): Promise<ReturnOutcome> {
    const name = transfer.provider ?? 'sandbox';
    const provider = this.providers.get(name);
    if (provider) return provider.transfers.sendReturn(transfer, em);
    if ((name === 'sandbox' || name === 'hmac') && this.poolFallback) {
      return this.poolFallback.sendReturn(transfer, em);
    }
    return Promise.resolve({
      outcome: 'refused',
      reason: `bank provider ${name} received this deposit and is no longer configured`,
    });
  }
}

/**
 * Checks every provider now and then every `everyMs` (a failure starts its cooldown, so new
 * accounts fail over before one is tried). Returns the stop function; the timer never keeps
 * the process alive.
 */
export function startBankProviderChecks(
  registry: BankProviderRegistry,
  everyMs: number,
  onUnhealthy: (state: ProviderState) => void,
): () => void {
  const round = () => {
    registry
      .checkAll()
      .then((states) => states.filter((state) => !state.ok).forEach(onUnhealthy))
      .catch(() => undefined);
  };
  round();
  const timer = setInterval(round, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
