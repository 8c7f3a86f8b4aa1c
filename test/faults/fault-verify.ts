// What a fault run proves once the faults stop and the system has drained, each check a row
// of the run's table: the database, the chains (canonical history only) and the webhook
// receiver are compared with what the load asked for, and the ledger check is the judge.
import { getAddress } from 'viem';
import type { Chain } from '../../src/domain/chains';
import { toBaseUnits } from '../../src/domain/payout-rules';
import type { TestChains } from '../support/chains';
import { sql } from '../support/sql';
import { onrampCli } from '../support/stack';
import type { WebhookReceiver } from '../support/webhook-receiver';
import type { LoadRecord } from './fault-load';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

const CHAINS: Chain[] = ['BASE', 'ETHEREUM', 'POLYGON'];
/** Where a deposit may rest when the run ends, and why that is not a loss. */
const RESTING = new Set(['SETTLED', 'FAILED', 'REVERSED', 'RETURNED', 'RETURN_FAILED', 'FLAGGED']);

/** Still moving: deposits not resting and withdrawals not final (the drain waits on these). */
export async function inFlight(databaseUrl: string, merchantId: string): Promise<number> {
  const [row] = await sql<{ n: number }>(
    databaseUrl,
    `select (select count(*) from deposits where merchant_id = $1
               and status not in (${[...RESTING].map((s) => `'${s}'`).join(',')}))::int
          + (select count(*) from withdrawals where merchant_id = $1
               and status not in ('COMPLETED', 'FAILED'))::int
          + (select count(*) from webhook_deliveries where merchant_id = $1
               and status = 'PENDING')::int as n`,
    [merchantId],
  );
  return row.n;
}

async function depositChecks(databaseUrl: string, merchantId: string, load: LoadRecord) {
  const rows = await sql<{
    id: string;
    bank_reference: string;
    status: string;
    flag_reason: string | null;
  }>(
    databaseUrl,
    'select id, bank_reference, status, flag_reason from deposits where merchant_id = $1',
    [merchantId],
  );
  const byReference = new Map(rows.map((r) => [r.bank_reference, r]));
  const missing = [...load.deposits].filter(([ref, id]) => byReference.get(ref)?.id !== id || !id);
  const statuses = new Map<string, number>();
  for (const r of rows) {
    const key = r.status === 'FLAGGED' ? `FLAGGED '${r.flag_reason}'` : r.status;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
  }
  const moving = rows.filter((r) => !RESTING.has(r.status));
  return [
    {
      name: 'every transfer offered became exactly one deposit',
      ok: missing.length === 0 && load.lost.length === 0 && rows.length === load.deposits.size,
      detail: `${load.deposits.size} offered, ${rows.length} deposits, ${missing.length} unmatched, ${load.lost.length} requests never answered, ${load.retries} retries`,
    },
    {
      name: 'every deposit terminal or explainably resting',
      ok: moving.length === 0,
      detail: [...statuses].map(([s, n]) => `${s}: ${n}`).join(', '),
    },
  ];
}

/** Canonical Transfer logs of each chain's USDC, by recipient (checksummed). */
async function transfersByRecipient(chains: TestChains) {
  const byRecipient = new Map<string, Array<{ txHash: string; value: bigint; chain: Chain }>>();
  for (const chain of CHAINS) {
    for (const log of await chains.transferLogs(chain, 'USDC')) {
      const to = getAddress(log.to);
      byRecipient.set(to, [
        ...(byRecipient.get(to) ?? []),
        { txHash: log.txHash, value: log.value, chain },
      ]);
    }
  }
  return byRecipient;
}

async function onChainChecks(databaseUrl: string, merchantId: string, chains: TestChains) {
  const transfers = await transfersByRecipient(chains);
  const paid = await sql<{
    kind: string;
    id: string;
    chain: Chain;
    to: string;
    amount: string;
    tx_hash: string | null;
    done: boolean;
  }>(
    databaseUrl,
    `select 'deposit' as kind, d.id, o.settlement_chain as chain, o.destination_address as "to",
            d.amount_asset::text as amount, d.tx_hash, d.status = 'SETTLED' as done
       from deposits d join onramps o on o.id = d.onramp_id
      where d.merchant_id = $1 and o.settlement_mode = 'AUTO_WITHDRAW'
     union all
     select 'withdrawal', w.id, w.chain, w.destination_address, w.amount::text, w.tx_hash,
            w.status = 'COMPLETED'
       from withdrawals w where w.merchant_id = $1`,
    [merchantId],
  );
  const expected = new Map<string, typeof paid>();
  for (const row of paid) {
    const to = getAddress(row.to);
    expected.set(to, [...(expected.get(to) ?? []), row]);
  }
  const wrong: string[] = [];
  for (const [to, rows] of expected) {
    const done = rows.filter((r) => r.done);
    const logs = transfers.get(to) ?? [];
    const hashes = new Set(logs.map((l) => l.txHash.toLowerCase()));
    const sum = (values: bigint[]) => values.reduce((a, b) => a + b, 0n);
    if (logs.length !== done.length)
      wrong.push(`${to}: ${logs.length} transfers for ${done.length} paid`);
    else if (done.some((r) => !r.tx_hash || !hashes.has(r.tx_hash.toLowerCase())))
      wrong.push(`${to}: a recorded tx_hash is not in the canonical chain`);
    else if (sum(logs.map((l) => l.value)) !== sum(done.map((r) => toBaseUnits(r.amount))))
      wrong.push(`${to}: amounts differ`);
  }
  const nonces = await sql<{
    chain: string;
    n: number;
    distinct_nonces: number;
    first: string;
    last: string;
  }>(
    databaseUrl,
    `select chain, count(*)::int as n, count(distinct nonce)::int as distinct_nonces,
            min(nonce)::text as first, max(nonce)::text as last
       from payouts where nonce is not null group by chain order by chain`,
  );
  const gaps = nonces.filter(
    (r) => r.distinct_nonces !== r.n || Number(r.last) - Number(r.first) + 1 !== r.n,
  );
  const settled = paid.filter((r) => r.done).length;
  return [
    {
      name: 'no payout or withdrawal sent twice (canonical chain)',
      ok: wrong.length === 0,
      detail:
        wrong.length === 0
          ? `${settled} paid, each exactly one transfer of its amount with its recorded hash`
          : wrong.slice(0, 5).join('; '),
    },
    {
      name: 'hot wallet nonces neither reused nor skipped',
      ok: gaps.length === 0,
      detail: nonces
        .map((r) => `${r.chain} ${r.n} payouts, nonces ${r.first}-${r.last}`)
        .join('; '),
    },
  ];
}

/** Events after `afterSeq` (the last one before the endpoint existed: those had nowhere to go). */
async function webhookCheck(
  databaseUrl: string,
  merchantId: string,
  receiver: WebhookReceiver,
  afterSeq: string,
) {
  const events = await sql<{ id: string; kind: string; delivery: string | null }>(
    databaseUrl,
    `select e.id, e.kind,
            (select w.status || ' after ' || w.attempt_count || ' attempts'
               from webhook_deliveries w where w.event_id = e.id limit 1) as delivery
       from events e where e.merchant_id = $1 and e.seq > $2`,
    [merchantId, afterSeq],
  );
  const received = new Set(receiver.envelopes().map((e) => e.event_id));
  const missing = events.filter((e) => !received.has(e.id));
  const examples = missing
    .slice(0, 3)
    .map((e) => `${e.id} ${e.kind} (${e.delivery ?? 'no delivery row'})`);
  return {
    name: 'every event delivered to the receiver at least once',
    ok: missing.length === 0,
    detail: `${events.length} events, ${receiver.received.length} deliveries received, ${missing.length} never delivered${examples.length ? `: ${examples.join('; ')}` : ''}`,
  };
}

async function ledgerCheck(databaseUrl: string): Promise<Check> {
  try {
    await onrampCli(databaseUrl, ['ledger', 'check']);
    return { name: 'onramp ledger check', ok: true, detail: 'exit 0: every invariant holds' };
  } catch (error) {
    return {
      name: 'onramp ledger check',
      ok: false,
      detail: String((error as Error).message).slice(0, 300),
    };
  }
}

export async function verifyRun(options: {
  databaseUrl: string;
  merchantId: string;
  chains: TestChains;
  receiver: WebhookReceiver;
  load: LoadRecord;
  /** The merchant's last event before its webhook endpoint was registered. */
  eventsBeforeEndpoint: string;
}): Promise<Check[]> {
  const { databaseUrl, merchantId } = options;
  return [
    ...(await depositChecks(databaseUrl, merchantId, options.load)),
    ...(await onChainChecks(databaseUrl, merchantId, options.chains)),
    await webhookCheck(databaseUrl, merchantId, options.receiver, options.eventsBeforeEndpoint),
    await ledgerCheck(databaseUrl),
  ];
}
