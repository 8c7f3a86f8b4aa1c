import { randomBytes } from 'node:crypto';
import { createTestDatabase } from '../../support/db';
import { graphql, request } from '../../support/http';
import { balanceOnramp, createOnramp, freshRate, randomAddress } from '../../support/onramps';
import { createMerchant, eventually, onrampCli, startStack, type Stack } from '../../support/stack';
import { startMonnifyStandIn, monnifySettings } from '../../support/monnify-stand-in';
import { startPaystackStandIn, paystackSettings } from '../../support/paystack-stand-in';
import type { ProviderSecrets } from './provider-requests';

/** The bank's HMAC secret for `POST /v1/bank/notifications` (served only when it is set). */
export const BANK_SECRET = `bank_${randomBytes(16).toString('hex')}`;

/** One merchant's footprint: everything of it that must never reach another caller. */
export interface MerchantData {
  merchantId: string;
  apiKey: string;
  clientSecret: string;
  onrampIds: string[];
  accountNumbers: string[];
  paymentReferences: string[];
  depositIds: string[];
  bankReferences: string[];
  withdrawalIds: string[];
  addresses: string[];
  webhookUrl: string;
  webhookSecret: string;
  name: string;
  /** Its settings' `allowed_origins`: the one browser origin its client secret may be used from. */
  allowedOrigins: string[];
}

/**
 * A running stack with two merchants that hold real data (settled deposits, a withdrawal, a
 * webhook endpoint), and the credentials the fuzzers attack with. A is the caller; B is the
 * other merchant whose data must never show.
 */
export interface FuzzWorld {
  stack: Stack;
  databaseUrl: string;
  a: MerchantData;
  b: MerchantData;
  /** A key of A that was revoked, and a production (`sk_live_`) key of A: both must be 401. */
  revokedKey: string;
  otherEnvironmentKey: string;
  /** A restricted key of A (deposits and rates only): refused 403 elsewhere, never a 5xx. */
  restrictedKey: string;
  /** A restricted key of A with `balance:read` only: reads the merchant, never its webhooks. */
  balanceKey: string;
  /** A restricted key of A held to an address the fuzzer never sends from: always 403. */
  elsewhereKey: string;
  /** Paystack's and Monnify's notification secrets (their stand-ins run beside the stack). */
  providerSecrets: ProviderSecrets;
}

/** How long a widening waits in the fuzz stack: longer than any run. */
export const SETTINGS_DELAY_SECONDS = 3_600;

/** The stack's env: limits raised so the limiter does not answer most generated requests. */
export const FUZZ_ENV: Record<string, string> = {
  RATE_LIMIT_PER_MINUTE: '100000000',
  RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '100000000',
  BANK_WEBHOOK_SECRET: BANK_SECRET,
  // The webhook endpoints point at a closed loopback port (deliveries fail and are retried).
  WEBHOOK_ALLOW_PRIVATE: 'true',
  DB_POOL_MAX: '10',
  // Once ready, the processes' output is drained unread: parsing ten thousand request log
  // lines would cost the test process more than the fuzzing itself.
  KEEP_LOGS: 'false',
  ONRAMP_DAILY_LIMIT: '1000000',
  // A widening settings change generated early must still be pending at the end of the run
  // (the settings oracle's invariants assume none falls due meanwhile).
  WITHDRAWAL_ADDRESS_DELAY_SECONDS: String(SETTINGS_DELAY_SECONDS),
};

async function settled(stack: Stack, key: string, depositId: string): Promise<void> {
  await eventually(async () => {
    const read = await request(stack.url, 'GET', `/v1/deposits/${depositId}`, { key });
    return read.body?.status === 'SETTLED' ? true : undefined;
  }, 60_000);
}

/** Creates a merchant with two onramps, two settled deposits, a withdrawal and a webhook. */
async function populate(stack: Stack, databaseUrl: string, name: string): Promise<MerchantData> {
  const { merchant_id: merchantId, api_key: apiKey } = await createMerchant(databaseUrl, name);
  const rate = await freshRate(stack.url, apiKey);
  const data: MerchantData = {
    merchantId,
    apiKey,
    clientSecret: '',
    onrampIds: [],
    accountNumbers: [],
    paymentReferences: [],
    depositIds: [],
    bankReferences: [],
    withdrawalIds: [],
    addresses: [],
    webhookUrl: `http://127.0.0.1:9/hooks/${randomBytes(6).toString('hex')}`,
    webhookSecret: '',
    name,
    allowedOrigins: [`https://shop-${randomBytes(4).toString('hex')}.fuzz.example`],
  };
  for (const type of ['EPHEMERAL', 'PERMANENT']) {
    const { rate_id: _unused, ...permanent } = balanceOnramp(rate.rate_id, type);
    const body = type === 'PERMANENT' ? permanent : balanceOnramp(rate.rate_id, type);
    const onramp = await createOnramp(stack.url, apiKey, body);
    data.onrampIds.push(onramp.onramp_id);
    data.accountNumbers.push(onramp.virtual_account.account_number);
    data.paymentReferences.push(
      (onramp as unknown as { payment_reference: string }).payment_reference,
    );
    data.clientSecret ||= onramp.client_secret;
    const bankReference = `FUZZ${randomBytes(8).toString('hex').toUpperCase()}`;
    const deposit = await request(stack.url, 'POST', '/v1/sandbox/deposits', {
      key: apiKey,
      body: {
        account_number: onramp.virtual_account.account_number,
        amount_ngn: '150000.00',
        bank_reference: bankReference,
      },
    });
    if (deposit.status !== 201) throw new Error(`sandbox deposit: ${deposit.text}`);
    data.depositIds.push(deposit.body.deposit_id);
    data.bankReferences.push(bankReference);
  }
  for (const depositId of data.depositIds) await settled(stack, apiKey, depositId);
  const address = randomAddress();
  const withdrawal = await request(stack.url, 'POST', '/v1/merchant/withdraw', {
    key: apiKey,
    body: { amount: '10', asset: 'USDC', chain: 'BASE', destination_address: address },
  });
  if (withdrawal.status !== 202) throw new Error(`withdraw: ${withdrawal.text}`);
  data.withdrawalIds.push(withdrawal.body.withdrawal_id);
  data.addresses.push(address);
  const endpoint = await graphql<{ setWebhookEndpoint: { secret: string } }>(
    stack.url,
    apiKey,
    `
      mutation ($url: String!) {
        setWebhookEndpoint(url: $url) {
          secret
        }
      }
    `,
    { url: data.webhookUrl },
  );
  if (!endpoint.body.data) throw new Error(`setWebhookEndpoint: ${endpoint.text}`);
  data.webhookSecret = endpoint.body.data.setWebhookEndpoint.secret;
  const settings = await request(stack.url, 'PATCH', '/v1/merchant/settings', {
    key: apiKey,
    body: { allowed_origins: data.allowedOrigins },
  });
  if (settings.status !== 200) throw new Error(`allowed_origins: ${settings.text}`);
  return data;
}

export async function startFuzzWorld(): Promise<FuzzWorld> {
  const databaseUrl = await createTestDatabase();
  // Paystack and Monnify behind the sandbox bank: accounts still come from the pool (sandbox
  // is first), and their notification routes are served and confirm against the stand-ins.
  const [paystack, monnify] = await Promise.all([startPaystackStandIn(), startMonnifyStandIn()]);
  const stack = await startStack(databaseUrl, {
    env: {
      ...FUZZ_ENV,
      BANK_PROVIDERS: 'sandbox,paystack,monnify',
      ...paystackSettings(paystack),
      ...monnifySettings(monnify),
    },
  }).catch(async (error: unknown) => {
    await Promise.all([paystack.close(), monnify.close()]);
    throw error;
  });
  const stopStack = stack.stop.bind(stack);
  stack.stop = async () => {
    await stopStack();
    await Promise.all([paystack.close(), monnify.close()]);
  };
  try {
    const [a, b] = await Promise.all([
      populate(stack, databaseUrl, 'Alpha Fuzz Stores'),
      populate(stack, databaseUrl, `Bravo Hidden ${randomBytes(4).toString('hex')}`),
    ]);
    const issue = async (env: string) =>
      (await onrampCli(databaseUrl, [
        'keys',
        'issue',
        '--merchant',
        a.merchantId,
        '--env',
        env,
        '--json',
      ])) as {
        key_id: string;
        api_key: string;
      };
    const revoked = await issue('sandbox');
    await onrampCli(databaseUrl, ['keys', 'revoke', revoked.key_id, '--json']);
    const live = await issue('production');
    const restricted = async (body: Record<string, unknown>) => {
      const created = await request(stack.url, 'POST', '/v1/api_keys', { key: a.apiKey, body });
      if (created.status !== 201) throw new Error(`api key: ${created.text}`);
      return created.body.secret as string;
    };
    const restrictedKey = await restricted({
      name: 'Fuzz restricted',
      scopes: ['deposits:read', 'rates:read'],
    });
    const balanceKey = await restricted({ name: 'Fuzz balance', scopes: ['balance:read'] });
    const elsewhereKey = await restricted({
      name: 'Fuzz elsewhere',
      scopes: ['all'],
      allowed_ips: ['203.0.113.0/24'],
    });
    return {
      restrictedKey,
      balanceKey,
      elsewhereKey,
      stack,
      databaseUrl,
      a,
      b,
      revokedKey: revoked.api_key,
      otherEnvironmentKey: live.api_key,
      providerSecrets: { paystack: paystack.secretKey, monnify: monnify.secretKey },
    };
  } catch (error) {
    await stack.stop();
    throw error;
  }
}

/** Everything of a merchant a response must not show to anyone else (ids, secrets, refs). */
export function secretsOf(m: MerchantData): string[] {
  return [
    m.merchantId,
    m.apiKey,
    m.clientSecret,
    ...m.allowedOrigins,
    ...m.onrampIds,
    ...m.accountNumbers,
    ...m.paymentReferences,
    ...m.depositIds,
    ...m.bankReferences,
    ...m.withdrawalIds,
    ...m.addresses,
    m.webhookUrl,
    m.webhookSecret,
    m.name,
  ].filter((value) => value.length >= 8);
}
