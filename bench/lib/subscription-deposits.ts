import type { Client } from 'pg';
import { runLoad } from './load';
import { untilTrue } from './ws-api';
import { cpuMs } from './ws-rpc';

/** The subscriptions benchmark's deposit traffic: sandbox transfers over the merchant's onramps. */
export function depositLoad(
  url: string,
  key: string,
  accounts: string[],
  reference: string,
  options: { durationMs: number; rate: number },
) {
  return runLoad(
    {
      baseUrl: url,
      requests: accounts.map((accountNumber) => ({
        method: 'POST',
        path: '/v1/sandbox/deposits',
        headers: { authorization: `Bearer ${key}` },
        body: { account_number: accountNumber, amount_ngn: '15000', bank_reference: reference },
      })),
      durationMs: options.durationMs,
      concurrency: 50,
      rate: options.rate,
    },
    1,
  );
}

/** Until the merchant has no PENDING_FX deposit (every deposit settled), at most `ms`. */
export function allSettled(db: Client, merchantId: string, ms: number): Promise<boolean> {
  return untilTrue(async () => {
    const { rows } = await db.query<{ n: number }>(
      `select count(*)::int as n from deposits where merchant_id = $1 and status = 'PENDING_FX'`,
      [merchantId],
    );
    return rows[0].n === 0;
  }, ms);
}

/**
 * The gateway's CPU for the same deposit traffic with nobody subscribed (taking the transfers,
 * its share of their settlement's notices, its timers), per deposit answered 201: what the
 * gateway would spend in the measured window without a single subscription message. The bare
 * broadcaster does none of it, so the CPU per message compared with the bare one leaves it out.
 */
export async function gatewayCpuWithoutSubscribers(
  gatewayPid: number | undefined,
  db: Client,
  target: { url: string; key: string; merchantId: string; accounts: string[] },
  options: { durationMs: number; rate: number },
): Promise<{ perDepositMs: number; deposits: number }> {
  const before = cpuMs(gatewayPid);
  const load = await depositLoad(
    target.url,
    target.key,
    target.accounts,
    'bench-sub-alone-{{n}}',
    options,
  );
  await allSettled(db, target.merchantId, 30_000);
  const spent = cpuMs(gatewayPid) - before;
  const deposits = load.statuses['201'] ?? 0;
  return { perDepositMs: deposits > 0 ? spent / deposits : 0, deposits };
}
