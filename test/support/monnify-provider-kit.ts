// A MonnifyProvider wired to a stand-in, and the account requests the tests open with.
import type { AccountRequest } from '../../src/adapters/bank/bank-provider';
import { MonnifyProvider, type MonnifyProviderOptions } from '../../src/adapters/bank/monnify';
import { ManualClock } from '../../src/clock';
import type { MonnifyStandIn } from './monnify-stand-in';

export function monnifyProviderFor(
  standIn: MonnifyStandIn,
  clock: ManualClock,
  overrides: Partial<MonnifyProviderOptions> = {},
): MonnifyProvider {
  return new MonnifyProvider({
    baseUrl: standIn.url,
    apiKey: standIn.apiKey,
    secretKey: standIn.secretKey,
    contractCode: standIn.contractCode,
    sourceAccount: standIn.sourceAccount,
    preferredBanks: null,
    timeoutMs: 5_000,
    clock,
    ...overrides,
  });
}

let serial = 0;

/** A fresh onramp's account request (an 11-digit BVN unless `customer` says otherwise). */
export function accountRequest(customer: Partial<AccountRequest['customer']> = {}): AccountRequest {
  serial += 1;
  return {
    reference: `onr_monnify_${process.pid}_${serial}`,
    accountName: 'Acme Pay',
    customer: {
      email: `payer${serial}@example.ng`,
      firstName: 'Ada',
      lastName: 'Okafor',
      bvn: '22288899900',
      ...customer,
    },
  };
}
