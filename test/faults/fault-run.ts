// A fault run (issue 35): the whole system under load while a seeded schedule kills its
// processes, restarts PostgreSQL, stops a chain's node and reorganises a chain; afterwards
// fault-verify.ts judges. `npm run faults` runs the long version, test/e2e a short one.
import type { Chain } from '../../src/domain/chains';
import { graphql, request } from '../support/http';
import { randomAddress } from '../support/onramps';
import { seededRandom } from '../support/seeded-random';
import { sql } from '../support/sql';
import { createMerchant, eventually } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';
import { emptyRecord, offerLoad, type LoadOnramp, type LoadRecord } from './fault-load';
import { describeFault, planFaults, type Fault, type FaultPlan } from './fault-schedule';
import { inFlight, verifyRun, type Check } from './fault-verify';
import { Fleet } from './fleet';

export interface FaultRunOptions extends Omit<FaultPlan, 'seed'> {
  seed: number;
  depositsPerSecond: number;
  withdrawalsPerSecond: number;
  /** How long the system may take to drain once load and faults stop. */
  drainMs: number;
  /** Extra process configuration (e.g. confirmations). */
  env?: Record<string, string>;
  log?: (line: string) => void;
}

export interface FaultRunReport {
  seed: number;
  faults: Array<{ atMs: number; what: string; outcome: string }>;
  checks: Check[];
  ok: boolean;
  /** The processes' last log lines, when a check failed. */
  logTail?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function inject(fleet: Fleet, fault: Fault, deadline: number): Promise<string> {
  switch (fault.kind) {
    case 'kill':
      await fleet.kill(fault.role, fault.index);
      await sleep(fault.downMs);
      await fleet.restart(fault.role, fault.index, deadline);
      return 'restarted';
    case 'postgres-restart':
      await fleet.postgres.down();
      await sleep(fault.downMs);
      await fleet.postgres.up();
      return 'up again';
    case 'chain-stop':
      await fleet.chains.stopChain(fault.chain);
      await sleep(fault.downMs);
      await fleet.chains.restartChain(fault.chain);
      return 'up again';
    case 'reorg': {
      const client = fleet.chains.publicClient(fault.chain);
      const before = await client.getBlock();
      // anvil_reorg(depth, transactions to re-include): the last `depth` blocks are replaced by
      // new ones without the transactions they held, which go back to nobody's mempool.
      await client.request({ method: 'anvil_reorg' as never, params: [fault.depth, []] as never });
      const after = await client.getBlock({ blockNumber: before.number });
      return after.hash === before.hash ? 'NOT reorganised' : `block ${before.number} replaced`;
    }
  }
}

async function setUp(fleet: Fleet, receiver: WebhookReceiver) {
  const { merchant_id: merchantId, api_key: key } = await createMerchant(
    fleet.databaseUrl,
    'Fault Run Co',
  );
  const url = fleet.liveGatewayUrls()[0];
  const [{ seq }] = await sql<{ seq: string }>(
    fleet.databaseUrl,
    'select coalesce(max(seq), 0)::text as seq from events where merchant_id = $1',
    [merchantId],
  );
  const hook = await graphql(
    url,
    key,
    'mutation($u: String!) { setWebhookEndpoint(url: $u) { url } }',
    {
      u: receiver.url,
    },
  );
  if (hook.body.errors) throw new Error(`webhook endpoint: ${JSON.stringify(hook.body.errors)}`);
  await eventually(async () => {
    const rate = await request(url, 'GET', '/v1/rates?from=NGN&to=USDC', { key });
    return rate.status === 200 ? true : undefined;
  }, 60_000);
  const onramps: LoadOnramp[] = [];
  const settlements: Array<{ mode: LoadOnramp['mode']; chain?: Chain }> = [
    { mode: 'MERCHANT_BALANCE' },
    { mode: 'MERCHANT_BALANCE' },
    { mode: 'AUTO_WITHDRAW', chain: 'BASE' },
    { mode: 'AUTO_WITHDRAW', chain: 'ETHEREUM' },
    { mode: 'AUTO_WITHDRAW', chain: 'POLYGON' },
  ];
  for (const { mode, chain } of settlements) {
    const settlement =
      mode === 'MERCHANT_BALANCE'
        ? { mode }
        : { mode, asset: 'USDC', chain, destination_address: randomAddress() };
    const created = await request(url, 'POST', '/v1/onramp', {
      key,
      body: { type: 'PERMANENT', user: { email: 'faults@example.com' }, settlement },
    });
    if (created.status !== 201)
      throw new Error(`POST /v1/onramp answered ${created.status}: ${created.text}`);
    onramps.push({ accountNumber: created.body.virtual_account.account_number, mode, chain });
  }
  return { merchantId, key, onramps, eventsBeforeEndpoint: seq };
}

/** Runs the whole fault run and reports; never throws for a failed check (the report says). */
export async function runFaults(options: FaultRunOptions): Promise<FaultRunReport> {
  const log = options.log ?? (() => undefined);
  const plan = planFaults(options);
  const receiver = await new WebhookReceiver().start();
  const fleet = await Fleet.start({
    gateways: options.gateways,
    runners: options.runners,
    env: {
      RATE_LIMIT_PER_MINUTE: '1000000',
      MERCHANT_DAILY_LIMIT_USD: '100000000',
      SYSTEM_DAILY_LIMIT_USD: '100000000',
      DEPOSIT_REDRIVE_SECONDS: '2',
      PAYOUT_POLL_MS: '300',
      KEEP_LOGS: 'true',
      ...options.env,
    },
  });
  const faults: FaultRunReport['faults'] = [];
  try {
    const merchant = await setUp(fleet, receiver);
    const random = seededRandom(options.seed);
    const load: LoadRecord = emptyRecord();
    const start = Date.now();
    const loadDone = offerLoad(
      fleet,
      random,
      merchant,
      {
        depositsPerSecond: options.depositsPerSecond,
        withdrawalsPerSecond: options.withdrawalsPerSecond,
        giveUpMs: 120_000,
      },
      start + options.loadMs,
      load,
    );
    for (const fault of plan) {
      await sleep(Math.max(0, start + fault.atMs - Date.now()));
      const at = Date.now() - start;
      let outcome: string;
      try {
        outcome = await inject(fleet, fault, Date.now() + 120_000);
      } catch (error) {
        outcome = `injection failed: ${(error as Error).message.split('\n')[0]}`;
      }
      faults.push({ atMs: at, what: describeFault(fault), outcome });
      log(`${(at / 1000).toFixed(1)} s: ${describeFault(fault)}: ${outcome}`);
    }
    await loadDone;
    log(`load done after ${((Date.now() - start) / 1000).toFixed(0)} s; draining`);
    const drainDeadline = Date.now() + options.drainMs;
    while (
      Date.now() < drainDeadline &&
      (await inFlight(fleet.databaseUrl, merchant.merchantId)) > 0
    ) {
      await sleep(1000);
    }
    const checks = await verifyRun({
      databaseUrl: fleet.databaseUrl,
      merchantId: merchant.merchantId,
      chains: fleet.chains,
      receiver,
      load,
      eventsBeforeEndpoint: merchant.eventsBeforeEndpoint,
    });
    const ok =
      checks.every((c) => c.ok) && faults.every((f) => !f.outcome.startsWith('injection failed'));
    return { seed: options.seed, faults, checks, ok, ...(ok ? {} : { logTail: fleet.logTail() }) };
  } finally {
    await fleet.stop();
    await receiver.stop();
  }
}

/** The report as a Markdown table (faults, then checks). */
export function reportTable(report: FaultRunReport): string {
  const lines = [
    `Fault run, seed ${report.seed}: ${report.ok ? 'PASSED' : 'FAILED'}`,
    '',
    '| at (s) | fault injected | outcome |',
    '| ------ | -------------- | ------- |',
    ...report.faults.map((f) => `| ${(f.atMs / 1000).toFixed(1)} | ${f.what} | ${f.outcome} |`),
    '',
    '| check | ok | observed |',
    '| ----- | -- | -------- |',
    ...report.checks.map((c) => `| ${c.name} | ${c.ok ? 'yes' : 'NO'} | ${c.detail} |`),
  ];
  return lines.join('\n');
}
