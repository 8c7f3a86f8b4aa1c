/**
 * What the reads benchmark asks of each server: one settled deposit by id, from the bare
 * handler (`GET /deposits/{id}`), a gateway's REST (`GET /v1/deposits/{id}`) and its GraphQL
 * (`deposit(id)` with every field, the document sent in full each time, as a client without
 * persisted queries does). Every answer must be the settled deposit.
 */
import type { Target } from './interleaved-load';
import { api } from './merchant-api';
import type { BenchStack } from './stack';

/** Every field of the GraphQL Deposit (the same set REST returns, plus `id`). */
export const GQL_DEPOSIT_QUERY = `query Deposit($id: ID!) {
  deposit(id: $id) {
    id depositId onrampId merchantId paymentReference userEmail amountNgn bankReference rateId
    amountAsset asset chain txHash status failureReason flagReason createdAt settledAt updatedAt
  }
}`;

// Bodies are whatever the server answered; checked by hand below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

export interface Server {
  url: string;
  pid: number;
}

async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * One MERCHANT_BALANCE onramp over REST and `count` sandbox transfers into it, waited for until
 * SETTLED, so every read returns a settled deposit; their ids.
 */
export async function seedSettledDeposits(bench: BenchStack, count: number): Promise<string[]> {
  const { url } = bench.stack;
  const key = bench.merchant.api_key;
  const rate = await until(
    'a rate',
    async () => {
      const r = await api<{ rate_id: string }>(url, key, 'GET', '/v1/rates?from=NGN&to=USDC');
      return r.status === 200 ? r.body : undefined;
    },
    30_000,
  );
  const onramp = await api<Json>(url, key, 'POST', '/v1/onramp', {
    type: 'EPHEMERAL',
    rate_id: rate.rate_id,
    user: { email: 'bench@example.com' },
    settlement: { mode: 'MERCHANT_BALANCE' },
  });
  if (onramp.status !== 201) {
    throw new Error(`POST /v1/onramp answered ${onramp.status}: ${JSON.stringify(onramp.body)}`);
  }
  const account = onramp.body.virtual_account.account_number as string;
  const ids: string[] = [];
  let next = 0;
  const transfer = async () => {
    while (next < count) {
      const i = next++;
      const r = await api<Json>(url, key, 'POST', '/v1/sandbox/deposits', {
        account_number: account,
        amount_ngn: '15000',
        bank_reference: `BENCH-READS-${i}`,
      });
      if (r.status !== 201) {
        throw new Error(`sandbox deposit answered ${r.status}: ${JSON.stringify(r.body)}`);
      }
      ids.push(r.body.deposit_id as string);
    }
  };
  await Promise.all(Array.from({ length: 8 }, transfer));
  await until(
    `${count} SETTLED deposits`,
    async () => {
      const r = await api<Json>(url, key, 'GET', '/v1/deposits?status=SETTLED&per_page=1');
      return r.status === 200 && r.body.pagination.total === count ? true : undefined;
    },
    60_000,
  );
  return ids;
}

const isSettledDeposit = (d: Json, idField: string) =>
  d && typeof d[idField] === 'string' && d.status === 'SETTLED';

function restGood(body: string): boolean {
  try {
    return isSettledDeposit(JSON.parse(body), 'deposit_id');
  } catch {
    return false;
  }
}

export function bareTarget(bare: Server, key: string, ids: string[]): Target {
  return {
    label: 'bare',
    baseUrl: bare.url,
    pid: bare.pid,
    requests: ids.map((id) => ({
      method: 'GET',
      path: `/deposits/${id}`,
      headers: { authorization: `Bearer ${key}` },
    })),
    good: restGood,
  };
}

/** A gateway's REST and GraphQL reads, labelled `REST<suffix>` and `GraphQL<suffix>`. */
export function gatewayTargets(
  gateway: Server,
  key: string,
  ids: string[],
  suffix = '',
): { rest: Target; graphql: Target } {
  const authorization = `Bearer ${key}`;
  return {
    rest: {
      label: `REST${suffix}`,
      baseUrl: gateway.url,
      pid: gateway.pid,
      requests: ids.map((id) => ({
        method: 'GET',
        path: `/v1/deposits/${id}`,
        headers: { authorization },
      })),
      good: restGood,
    },
    graphql: {
      label: `GraphQL${suffix}`,
      baseUrl: gateway.url,
      pid: gateway.pid,
      requests: ids.map((id) => ({
        method: 'POST',
        path: '/graphql',
        headers: { authorization },
        body: { query: GQL_DEPOSIT_QUERY, variables: { id } },
      })),
      good: (body) => {
        try {
          const parsed = JSON.parse(body) as Json;
          return parsed.errors === undefined && isSettledDeposit(parsed.data?.deposit, 'depositId');
        } catch {
          return false;
        }
      },
    },
  };
}
