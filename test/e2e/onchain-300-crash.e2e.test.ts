import { getAddress, parseUnits, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Chain } from '../../src/domain/assets';
import { isContiguous, transferMismatch, walletNonces } from '../support/chain-audit';
import { startTestChains, type TestChains } from '../support/chains';
import { createTestDatabase } from '../support/db';
import { request } from '../support/http';
import { autoWithdrawOnramp, createOnramp, freshRate, sandboxTransfer } from '../support/onramps';
import { seededRandom, testSeed, type SeededRandom } from '../support/seeded-random';
import { sql } from '../support/sql';
import {
  baseEnv,
  createMerchant,
  eventually,
  onrampCli,
  startRunner,
  startStack,
  type RunningProcess,
  type Stack,
} from '../support/stack';

const SEED = testSeed();
const DEPOSITS = 300;
const CHAINS: Chain[] = ['BASE', 'ETHEREUM', 'POLYGON'];
const ASSETS = ['USDC', 'USDT'] as const;
type Asset = (typeof ASSETS)[number];
/** Onramps per chain and asset, each paying its own destination. */
const ONRAMPS_PER_PAIR = 2;

interface Plan {
  onramps: Array<{ chain: Chain; asset: Asset; destination: Address }>;
  deposits: Array<{ onramp: number; amountNgn: string }>;
  /** Deposits sent together, then a pause: about 12 a second from one client. */
  waves: Array<{ size: number; pauseMs: number }>;
  /** The first kill: once this many deposits were accepted, after a random delay. */
  firstKill: { afterAccepted: number; delayMs: number };
  /** The second: once this many were accepted and some payouts are SIGNED, not CONFIRMED. */
  secondKill: { afterAccepted: number };
}

/** Everything random, drawn up front from the seed, so SEED=<n> replays the same inputs. */
function planRun(random: SeededRandom): Plan {
  const address = () =>
    getAddress(
      `0x${Array.from({ length: 20 }, () => random.int(0, 255).toString(16).padStart(2, '0')).join('')}`,
    );
  const onramps = CHAINS.flatMap((chain) =>
    ASSETS.flatMap((asset) =>
      Array.from({ length: ONRAMPS_PER_PAIR }, () => ({ chain, asset, destination: address() })),
    ),
  );
  // 2,000 to 40,000 NGN with kobo: about 14 USD on average, 300 stay under the merchant's
  // daily 10,000 USD limit.
  const deposits = Array.from({ length: DEPOSITS }, () => ({
    onramp: random.int(0, onramps.length - 1),
    amountNgn: `${random.int(2_000, 40_000)}.${String(random.int(0, 99)).padStart(2, '0')}`,
  }));
  const waves: Plan['waves'] = [];
  for (let planned = 0; planned < DEPOSITS;) {
    const size = Math.min(random.int(1, 8), DEPOSITS - planned);
    waves.push({ size, pauseMs: random.int(100, 500) });
    planned += size;
  }
  return {
    onramps,
    deposits,
    waves,
    firstKill: { afterAccepted: random.int(90, 110), delayMs: random.int(0, 1500) },
    secondKill: { afterAccepted: random.int(190, 210) },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

interface DepositView {
  deposit_id: string;
  onramp_id: string;
  status: string;
  chain: Chain;
  asset: Asset;
  amount_asset: string;
  tx_hash: Hex | null;
}

/**
 * Issue 19's crash test: 300 AUTO_WITHDRAW deposits stream in over REST across three chains
 * and both stablecoins while the only job runner is SIGKILLed twice (once at a random moment,
 * once while payouts are signed but not mined) and started again. The chain, read with viem,
 * must show exactly one successful transfer per deposit, the right amount to the right
 * address, and the hot wallet's nonces without gap or repeat; the ledger must reconcile.
 */
describe(`300 on-chain settlements with the job runner killed twice (SEED=${SEED})`, () => {
  const runnerOverrides = {
    RATE_LIMIT_PER_MINUTE: '100000',
    DEPOSIT_REDRIVE_SECONDS: '2',
    PAYOUT_POLL_MS: '300',
  };
  const plan = planRun(seededRandom(SEED));
  let chains: TestChains;
  let stack: Stack;
  let databaseUrl: string;
  const restarted: RunningProcess[] = [];

  beforeAll(async () => {
    console.log(`onchain-300-crash: SEED=${SEED} (replay: SEED=${SEED} npx jest ${__filename})`);
    chains = await startTestChains();
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { env: { ...runnerOverrides, ...chains.env } });
  });
  afterAll(async () => {
    await Promise.all(restarted.map((p) => p.stop()));
    await stack?.stop();
    await chains?.stop();
  });

  /** Payout counts by status as the runner left them: what the kill interrupted. */
  async function payoutState(): Promise<string> {
    const rows = await sql<{ status: string; n: number; unsent: number }>(
      databaseUrl,
      `select status, count(*)::int as n, count(*) filter (where broadcast_at is null)::int as unsent
         from payouts group by status order by status`,
    );
    return rows
      .map((r) => `${r.status} ${r.n}${r.status === 'SIGNED' ? ` (${r.unsent} unsent)` : ''}`)
      .join(', ');
  }

  /** Waits until no deposit is PENDING_FX or PENDING_WITHDRAWAL; a timeout says what is stuck. */
  async function untilNothingInFlight(): Promise<void> {
    const open = async () =>
      sql<{ status: string; n: number }>(
        databaseUrl,
        `select status, count(*)::int as n from deposits
          where status in ('PENDING_FX', 'PENDING_WITHDRAWAL') group by status`,
      );
    try {
      await eventually(async () => ((await open()).length === 0 ? true : undefined), 120_000, 250);
    } catch (error) {
      const stuck = (await open()).map((r) => `${r.status} ${r.n}`).join(', ');
      throw new Error(`${String(error)}; deposits ${stuck}; payouts ${await payoutState()}`);
    }
  }

  it('pays every deposit once on chain, nonces contiguous, ledger green', async () => {
    const started = performance.now();
    const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
    const { api_key: key } = await createMerchant(databaseUrl, 'Crash 300 Co');
    const rates = {
      USDC: (await freshRate(stack.url, key, 'USDC')).rate_id,
      USDT: (await freshRate(stack.url, key, 'USDT')).rate_id,
    };
    const onramps = await Promise.all(
      plan.onramps.map(({ chain, asset, destination }) =>
        createOnramp(stack.url, key, {
          ...autoWithdrawOnramp(rates[asset], { chain, asset, destination_address: destination }),
          type: 'EPHEMERAL',
        }),
      ),
    );
    const destinationOf = new Map(onramps.map((o, i) => [o.onramp_id, plan.onramps[i]]));

    // The stream and the killer run side by side: deposits keep arriving while the runner is down.
    const acceptedIds: string[] = [];
    const stream = async () => {
      let next = 0;
      for (const wave of plan.waves) {
        const indexes = Array.from({ length: wave.size }, (_, j) => next + j);
        next += wave.size;
        await Promise.all(
          indexes.map(async (i) => {
            const { onramp, amountNgn } = plan.deposits[i];
            const account = onramps[onramp].virtual_account.account_number;
            const deposit = await sandboxTransfer(stack.url, key, account, amountNgn, `C300-${i}`);
            acceptedIds.push(deposit.deposit_id);
          }),
        );
        await sleep(wave.pauseMs);
      }
    };
    const runnerEnv = baseEnv(databaseUrl, { ...runnerOverrides, ...chains.env });
    let runner = stack.runners[0];
    const kills: string[] = [];
    const killAndRestart = async (why: string) => {
      await runner.stop('SIGKILL');
      kills.push(`${seconds()} s, ${acceptedIds.length} accepted, ${why}: ${await payoutState()}`);
      runner = await startRunner(runnerEnv);
      restarted.push(runner);
    };
    const accepted = (count: number) =>
      eventually(async () => (acceptedIds.length >= count ? true : undefined), 120_000, 10);
    const killer = async () => {
      await accepted(plan.firstKill.afterAccepted);
      await sleep(plan.firstKill.delayMs);
      await killAndRestart(`random moment (+${plan.firstKill.delayMs} ms)`);
      await accepted(plan.secondKill.afterAccepted);
      // Signed but not mined: the kill lands between signing, broadcast and confirmation.
      const signed = "select count(*)::int as n from payouts where status = 'SIGNED'";
      await eventually(
        async () => ((await sql<{ n: number }>(databaseUrl, signed))[0].n > 0 ? true : undefined),
        20_000,
        20,
      );
      await killAndRestart('payouts SIGNED, not CONFIRMED');
    };
    await Promise.all([stream(), killer()]);
    const streamed = seconds();

    // Nothing left in flight (a FLAGGED or FAILED deposit shows in the assertions below).
    await untilNothingInFlight();
    const settled = seconds();

    // The deposits as the merchant sees them (REST), all pages.
    const deposits: DepositView[] = [];
    for (let page = 1; ; page += 1) {
      const path = `/v1/deposits?per_page=100&page=${page}`;
      const listed = await request(stack.url, 'GET', path, { key });
      expect(listed.status).toBe(200);
      deposits.push(...listed.body.deposits);
      if (page >= listed.body.pagination.total_pages) break;
    }
    expect(kills).toHaveLength(2);
    expect(deposits.map((d) => d.deposit_id).sort()).toEqual([...acceptedIds].sort());
    const unsettled = deposits.filter(
      (d) => d.status !== 'SETTLED' || !/^0x[0-9a-f]{64}$/i.test(d.tx_hash ?? ''),
    );
    expect(unsettled).toEqual([]);
    const hashesOf = (list: Array<{ tx_hash: Hex | null }>) =>
      new Set(list.map((d) => d.tx_hash!.toLowerCase()));
    expect(hashesOf(deposits).size).toBe(DEPOSITS);
    const hotWallet = privateKeyToAccount(chains.env.HOT_WALLET_PRIVATE_KEY as Hex).address;
    const baseUnits = (d: DepositView) => parseUnits(d.amount_asset, 6);

    for (const chain of CHAINS) {
      // Per token: the hot wallet's Transfer events, in number and sum, are the deposits'.
      for (const asset of ASSETS) {
        const ours = deposits.filter((d) => d.chain === chain && d.asset === asset);
        const logs = (await chains.transferLogs(chain, asset)).filter((l) =>
          same(l.from, hotWallet),
        );
        expect({
          chain,
          asset,
          count: logs.length,
          sum: logs.reduce((s, l) => s + l.value, 0n),
        }).toEqual({
          chain,
          asset,
          count: ours.length,
          sum: ours.reduce((s, d) => s + baseUnits(d), 0n),
        });
        expect(hashesOf(logs.map((l) => ({ tx_hash: l.txHash })))).toEqual(hashesOf(ours));
      }

      // Per deposit: its transaction succeeded and moved exactly its amount to its destination.
      const ofChain = deposits.filter((d) => d.chain === chain);
      const wrong = await Promise.all(
        ofChain.map((d) =>
          transferMismatch(chains, chain, d.tx_hash!, {
            wallet: hotWallet,
            token: chains.chain(chain).tokens[d.asset],
            to: destinationOf.get(d.onramp_id)!.destination,
            value: baseUnits(d),
          }),
        ),
      );
      expect(wrong.filter((w) => w !== null)).toEqual([]);

      // Nonces: one mined transaction per deposit and nothing else, each its own nonce, no
      // gap from the first, the count the chain reports, nothing left in the mempool.
      const { mined, latestCount, pendingCount } = await walletNonces(chains, chain, hotWallet);
      const nonces = mined.map((t) => t.nonce);
      expect({ chain, mined: mined.length }).toEqual({ chain, mined: ofChain.length });
      expect(new Set(nonces).size).toBe(nonces.length);
      expect(isContiguous(nonces)).toBe(true);
      expect({ chain, latestCount, pendingCount }).toEqual({
        chain,
        latestCount: nonces.length,
        pendingCount: nonces.length,
      });
      expect(hashesOf(mined.map((t) => ({ tx_hash: t.hash })))).toEqual(hashesOf(ofChain));
    }

    const report = await onrampCli(databaseUrl, ['ledger', 'check']);
    expect(String(report)).toContain('"ok": true');
    console.log(
      [
        `onchain-300-crash SEED=${SEED}: streamed in ${streamed} s, all settled at ${settled} s, verified at ${seconds()} s`,
        ...kills.map((k) => `  kill: ${k}`),
      ].join('\n'),
    );
  }, 240_000);
});
