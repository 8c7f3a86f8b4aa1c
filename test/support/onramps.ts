import { getAddress } from 'viem';
import { randomBytes } from 'node:crypto';
import { request } from './http';
import { eventually } from './stack';

/** A fresh EIP-55 checksummed address. */
export function randomAddress(): string {
  return getAddress(`0x${randomBytes(20).toString('hex')}`);
}

export async function freshRate(
  baseUrl: string,
  key: string,
  to = 'USDC',
): Promise<{ rate_id: string; expires_at: string }> {
  return eventually(async () => {
    const response = await request(baseUrl, 'GET', `/v1/rates?from=NGN&to=${to}`, { key });
    return response.status === 200 ? response.body : undefined;
  });
}

export function balanceOnramp(rateId: string, type = 'EPHEMERAL') {
  return {
    type,
    user: { email: 'ada@example.com' },
    rate_id: rateId,
    settlement: { mode: 'MERCHANT_BALANCE' },
  };
}

export function autoWithdrawOnramp(rateId: string, overrides: Record<string, unknown> = {}) {
  return {
    type: 'THROWAWAY',
    user: { email: 'ada@example.com' },
    rate_id: rateId,
    settlement: {
      mode: 'AUTO_WITHDRAW',
      asset: 'USDC',
      chain: 'BASE',
      destination_address: randomAddress(),
      ...overrides,
    },
  };
}

/** A simulated NGN transfer (POST /v1/sandbox/deposits) that must create a deposit (201). */
export async function sandboxTransfer(
  baseUrl: string,
  key: string,
  accountNumber: string,
  amountNgn: string,
  bankReference?: string,
) {
  const response = await request(baseUrl, 'POST', '/v1/sandbox/deposits', {
    key,
    body: {
      account_number: accountNumber,
      amount_ngn: amountNgn,
      ...(bankReference ? { bank_reference: bankReference } : {}),
    },
  });
  if (response.status !== 201) {
    throw new Error(`sandbox transfer answered ${response.status}: ${response.text}`);
  }
  return response.body;
}

export interface CreatedOnramp {
  onramp_id: string;
  client_secret: string;
  virtual_account: { account_number: string };
}

/** POST /v1/onramp that must create the onramp (201). */
export async function createOnramp(
  baseUrl: string,
  key: string,
  body: unknown,
): Promise<CreatedOnramp> {
  const response = await request(baseUrl, 'POST', '/v1/onramp', { key, body });
  if (response.status !== 201) {
    throw new Error(`POST /v1/onramp answered ${response.status}: ${response.text}`);
  }
  return response.body;
}

/** A MERCHANT_BALANCE onramp at the newest rate (waits for the first rate if need be). */
export async function createBalanceOnramp(baseUrl: string, key: string): Promise<CreatedOnramp> {
  const rate = await freshRate(baseUrl, key);
  return createOnramp(baseUrl, key, balanceOnramp(rate.rate_id));
}

/**
 * A sandbox transfer into a new MERCHANT_BALANCE onramp, waited for until SETTLED: the
 * merchant's balance grows by its amount. Returns the deposit and its onramp.
 */
export async function settledBalanceDeposit(baseUrl: string, key: string, amountNgn: string) {
  const onramp = await createBalanceOnramp(baseUrl, key);
  const deposit = await sandboxTransfer(
    baseUrl,
    key,
    onramp.virtual_account.account_number,
    amountNgn,
  );
  await eventually(async () => {
    const read = await request(baseUrl, 'GET', `/v1/deposits/${deposit.deposit_id}`, { key });
    return read.body.status === 'SETTLED' ? true : undefined;
  });
  return { deposit, onramp };
}
