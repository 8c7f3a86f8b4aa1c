import { systemClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { bankProvidersFromConfig } from '../../src/adapters/bank/bank-providers';
import type { BankTransfers } from '../../src/adapters/bank/bank-transfers';
import { PaystackProvider } from '../../src/adapters/bank/paystack/paystack-provider';

const sandboxTransfers = { name: 'sandbox' } as BankTransfers;

describe('the paystack provider in the registry', () => {
  it('is built from BANK_PROVIDERS=paystack and its settings', () => {
    const config = loadConfig({
      BANK_PROVIDERS: 'paystack,sandbox',
      PAYSTACK_SECRET_KEY: 'sk_test_0123456789abcdef',
    });
    const registry = bankProvidersFromConfig(config, systemClock, sandboxTransfers);
    const paystack = registry.get('paystack');
    expect(paystack).toBeInstanceOf(PaystackProvider);
    expect(registry.ordered.map((p) => p.name)).toEqual(['paystack', 'sandbox']);
    expect(paystack!.notifications.name).toBe('paystack');
    expect(paystack!.transfers.name).toBe('paystack');
  });
});
