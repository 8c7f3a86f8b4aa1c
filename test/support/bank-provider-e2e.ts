// What the bank-provider e2e files share: the customers each provider can serve, posting a
// provider's notification, reading deposits over REST, and checking a payout on the chain.
import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { toBaseUnits } from '../../src/domain/payout-rules';
import { LOCAL_HOT_WALLET_PRIVATE_KEY } from '../../src/embedded/local-chains';
import type { Chain, Stablecoin } from '../../src/domain/chains';
import { transferMismatch } from './chain-audit';
import type { TestChains } from './chains';
import { request, type HttpResponse } from './http';
import { eventually } from './stack';

/** Names and phone (Paystack), an 11-digit BVN (Monnify): every provider can serve it. */
export const FULL_CUSTOMER = {
  first_name: 'Adaeze',
  last_name: 'Okafor',
  phone: '+2348031234567',
  bvn: '22212345678',
};
export const PAYSTACK_CUSTOMER = {
  first_name: FULL_CUSTOMER.first_name,
  last_name: FULL_CUSTOMER.last_name,
  phone: FULL_CUSTOMER.phone,
};
export const MONNIFY_CUSTOMER = { bvn: FULL_CUSTOMER.bvn };

/** A notification as a provider posts it (the stand-ins' `pay`, `completeDisbursement`...). */
export interface PostedNotification {
  rawBody: string;
  headers: Record<string, string>;
}

export const notify = (baseUrl: string, provider: string, notification: PostedNotification) =>
  request(baseUrl, 'POST', `/bank/${provider}/notifications`, {
    rawBody: notification.rawBody,
    headers: notification.headers,
  });

/** The error shape of the contract, `{"error":{"code","message","details"?}}`, and nothing else. */
export function expectErrorShape(response: HttpResponse, status: number, code: string): void {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
  expect(Object.keys(response.body)).toEqual(['error']);
  expect(typeof response.body.error.message).toBe('string');
  for (const name of Object.keys(response.body.error)) {
    expect(['code', 'message', 'details']).toContain(name);
  }
}

export async function depositNow(baseUrl: string, key: string, id: string) {
  const response = await request(baseUrl, 'GET', `/v1/deposits/${id}`, { key });
  expect(response.status).toBe(200);
  return response.body;
}

export const depositUntil = (
  baseUrl: string,
  key: string,
  id: string,
  status: string,
  timeoutMs = 30_000,
) =>
  eventually(async () => {
    const deposit = await depositNow(baseUrl, key, id);
    return deposit.status === status ? deposit : undefined;
  }, timeoutMs);

/** Every deposit of the merchant (newest first), as REST lists them. */
export async function allDeposits(baseUrl: string, key: string) {
  const response = await request(baseUrl, 'GET', '/v1/deposits?per_page=100', { key });
  expect(response.status).toBe(200);
  return response.body.deposits as { deposit_id: string; bank_reference: string }[];
}

/** The merchant's ledger postings that name `depositId` (ledger.csv, yesterday to tomorrow). */
export async function ledgerRowsOf(baseUrl: string, key: string, depositId: string) {
  const day = (offset: number) =>
    new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const response = await request(
    baseUrl,
    'GET',
    `/v1/reports/ledger.csv?from=${day(-1)}&to=${day(1)}`,
    { key },
  );
  expect(response.status).toBe(200);
  return response.text.split('\r\n').filter((line) => line.includes(depositId));
}

const HOT_WALLET = privateKeyToAccount(LOCAL_HOT_WALLET_PRIVATE_KEY).address;

/**
 * The SETTLED deposit's tx_hash, read from the chain itself: mined, from the hot wallet, one
 * Transfer of exactly `amount_asset` of the asset's token to the onramp's destination.
 */
export async function expectPaidOnChain(
  chains: TestChains,
  deposit: { chain: Chain; asset: Stablecoin; tx_hash: string; amount_asset: string },
  destination: string,
): Promise<void> {
  expect(deposit.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
  const mismatch = await transferMismatch(chains, deposit.chain, deposit.tx_hash as Hex, {
    wallet: HOT_WALLET,
    token: chains.chain(deposit.chain).tokens[deposit.asset],
    to: destination as Address,
    value: toBaseUnits(deposit.amount_asset),
  });
  expect(mismatch).toBeNull();
}
