// The traffic of a fault run: bank transfers into the merchant's onramps at a fixed rate and
// withdrawals from its balance, each sent as a careful client sends it behind a load balancer:
// to any gateway that answers, again (same bank reference, same Idempotency-Key) after a
// network error, a 5xx or a 429, until it gets its answer. Nothing here judges the service:
// it records what was asked, and fault-verify.ts compares it with what happened.
import type { Chain } from '../../src/domain/chains';
import { randomAddress } from '../support/onramps';
import type { SeededRandom } from '../support/seeded-random';
import type { Fleet } from './fleet';

export interface LoadOnramp {
  accountNumber: string;
  mode: 'MERCHANT_BALANCE' | 'AUTO_WITHDRAW';
  chain?: Chain;
}

export interface LoadOptions {
  depositsPerSecond: number;
  withdrawalsPerSecond: number;
  /** A request not answered by then counts as lost (the run fails on any). */
  giveUpMs: number;
}

export interface LoadRecord {
  /** Transfers the bank was asked to notify, by bank reference, with the deposit id answered. */
  deposits: Map<string, string | undefined>;
  /** Withdrawals asked for, by Idempotency-Key, with the withdrawal id answered. */
  withdrawals: Map<string, string | undefined>;
  /** Requests retried after a failure (network, 5xx, 429), and requests never answered. */
  retries: number;
  lost: string[];
  /** Answers that were neither success nor a retryable failure, e.g. 422 insufficient_balance. */
  refused: Map<string, number>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One request, retried on any live gateway until it has a final answer or `deadline`. */
async function send(
  fleet: Fleet,
  random: SeededRandom,
  record: LoadRecord,
  request: { path: string; key: string; body: unknown; headers?: Record<string, string> },
  deadline: number,
): Promise<{ status: number; body: Record<string, unknown> } | undefined> {
  for (let attempt = 0; Date.now() < deadline; attempt += 1) {
    if (attempt > 0) {
      record.retries += 1;
      await sleep(Math.min(2000, 100 * 2 ** attempt));
    }
    const urls = fleet.liveGatewayUrls();
    if (urls.length === 0) continue;
    try {
      const response = await fetch(`${random.pick(urls)}${request.path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${request.key}`,
          'content-type': 'application/json',
          ...request.headers,
        },
        body: JSON.stringify(request.body),
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
      if (response.status >= 500 || response.status === 429 || response.status === 409) continue;
      return { status: response.status, body };
    } catch {
      // refused, reset or timed out: the gateway died or the request was cut; send again
    }
  }
  return undefined;
}

/**
 * Offers load until `untilMs` (epoch ms) and resolves once every request sent has its final
 * answer or was given up.
 */
export async function offerLoad(
  fleet: Fleet,
  random: SeededRandom,
  merchant: { key: string; onramps: LoadOnramp[] },
  options: LoadOptions,
  untilMs: number,
  record: LoadRecord,
): Promise<void> {
  const inFlight: Array<Promise<void>> = [];
  const start = Date.now();
  let deposits = 0;
  let withdrawals = 0;
  const deposit = async (n: number) => {
    const onramp = random.pick(merchant.onramps);
    const reference = `FAULT-${start}-${n}`;
    record.deposits.set(reference, undefined);
    const body = {
      account_number: onramp.accountNumber,
      amount_ngn: `${random.int(15_000, 30_000)}.${String(random.int(0, 99)).padStart(2, '0')}`,
      bank_reference: reference,
    };
    const answer = await send(
      fleet,
      random,
      record,
      { path: '/v1/sandbox/deposits', key: merchant.key, body },
      Date.now() + options.giveUpMs,
    );
    if (!answer) record.lost.push(`deposit ${reference}`);
    else if (answer.status === 200 || answer.status === 201)
      record.deposits.set(reference, String(answer.body.deposit_id));
    else
      record.refused.set(
        `deposit ${answer.status}`,
        (record.refused.get(`deposit ${answer.status}`) ?? 0) + 1,
      );
  };
  const withdraw = async (n: number) => {
    const idempotencyKey = `fault-withdrawal-${start}-${n}`;
    record.withdrawals.set(idempotencyKey, undefined);
    const body = {
      amount: `${random.int(1, 3)}.${String(random.int(0, 999_999)).padStart(6, '0')}`,
      asset: 'USDC',
      chain: random.pick(['BASE', 'ETHEREUM', 'POLYGON']),
      destination_address: randomAddress(),
    };
    const answer = await send(
      fleet,
      random,
      record,
      {
        path: '/v1/merchant/withdraw',
        key: merchant.key,
        body,
        headers: { 'idempotency-key': idempotencyKey },
      },
      Date.now() + options.giveUpMs,
    );
    if (!answer) record.lost.push(`withdrawal ${idempotencyKey}`);
    else if (answer.status === 200 || answer.status === 201)
      record.withdrawals.set(idempotencyKey, String(answer.body.withdrawal_id));
    else {
      // A withdrawal before enough has settled is refused: that is the service being right.
      record.withdrawals.delete(idempotencyKey);
      const what = `withdrawal ${answer.status} ${String((answer.body.error as { code?: string })?.code)}`;
      record.refused.set(what, (record.refused.get(what) ?? 0) + 1);
    }
  };
  while (Date.now() < untilMs) {
    const elapsed = (Date.now() - start) / 1000;
    while (deposits < elapsed * options.depositsPerSecond) inFlight.push(deposit(deposits++));
    while (withdrawals < elapsed * options.withdrawalsPerSecond)
      inFlight.push(withdraw(withdrawals++));
    await sleep(20);
  }
  await Promise.all(inFlight);
}

export function emptyRecord(): LoadRecord {
  return { deposits: new Map(), withdrawals: new Map(), retries: 0, lost: [], refused: new Map() };
}
