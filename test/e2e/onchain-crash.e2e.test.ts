import type { Chain } from '../../src/domain/assets';
import { toBaseUnits } from '../../src/domain/payout-rules';
import { startTestChains, type TestChains } from '../support/chains';
import { createTestDatabase } from '../support/db';
import { request } from '../support/http';
import { autoWithdrawOnramp, freshRate, randomAddress } from '../support/onramps';
import { sql, untilAllSettled } from '../support/sql';
import {
  baseEnv,
  createMerchant,
  onrampCli,
  startRunner,
  startStack,
  type RunningProcess,
  type Stack,
} from '../support/stack';

const DEPOSITS = 100;
const CHAINS: Chain[] = ['BASE', 'ETHEREUM', 'POLYGON'];

/**
 * Two job runners share the database while 100 AUTO_WITHDRAW deposits stream in; one of them
 * is SIGKILLed at random moments (mid-FX, mid-signing, mid-broadcast...) and started again.
 * Every deposit must settle once, with exactly one on-chain transfer each, and the hot
 * wallet's nonces must be neither reused nor skipped.
 */
describe('job runners killed during 100 on-chain settlements', () => {
  const env = {
    RATE_LIMIT_PER_MINUTE: '100000',
    DEPOSIT_REDRIVE_SECONDS: '2',
    PAYOUT_POLL_MS: '300',
  };
  let chains: TestChains;
  let stack: Stack;
  let databaseUrl: string;
  const extra: RunningProcess[] = [];

  beforeAll(async () => {
    chains = await startTestChains();
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { env: { ...env, ...chains.env }, runners: 2 });
  });
  afterAll(async () => {
    await Promise.all(extra.map((p) => p.stop()));
    await stack?.stop();
    await chains?.stop();
  });

  it('settles every deposit once, one Transfer each, sums equal, nonces contiguous', async () => {
    const { api_key: key } = await createMerchant(databaseUrl, 'Crash Chain Co');
    const rate = await freshRate(stack.url, key);
    // One EPHEMERAL onramp per chain, each paying a fresh address.
    const onramps = await Promise.all(
      CHAINS.map(async (chain) => {
        const destination = randomAddress();
        const created = await request(stack.url, 'POST', '/v1/onramp', {
          key,
          body: {
            ...autoWithdrawOnramp(rate.rate_id, { chain, destination_address: destination }),
            type: 'EPHEMERAL',
          },
        });
        expect(created.status).toBe(201);
        return { chain, destination, created };
      }),
    );

    let killer: RunningProcess = stack.runners[0];
    const send = async (i: number) => {
      const onramp = onramps[i % CHAINS.length];
      const response = await request(stack.url, 'POST', '/v1/sandbox/deposits', {
        key,
        body: {
          account_number: onramp.created.body.virtual_account.account_number,
          amount_ngn: `${15000 + i}.50`,
          bank_reference: `CHAIN-CRASH-${i}`,
        },
      });
      expect(response.status).toBe(201);
    };
    for (let batch = 0; batch < 10; batch += 1) {
      await Promise.all(Array.from({ length: DEPOSITS / 10 }, (_, j) => send(batch * 10 + j)));
      if (batch % 3 === 1) {
        // A random moment within the next second or so: settlement, signing or broadcasting.
        await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 1200)));
        await killer.stop('SIGKILL');
        killer = await startRunner(baseEnv(databaseUrl, { ...env, ...chains.env }));
        extra.push(killer);
      }
    }

    await untilAllSettled(databaseUrl, 500);

    const deposits = await sql<{
      id: string;
      chain: Chain;
      amount_asset: string;
      tx_hash: string;
      settled_events: number;
    }>(
      databaseUrl,
      `select d.id, d.chain, d.amount_asset::text, d.tx_hash,
              (select count(*)::int from events e
                where e.deposit_id = d.id and e.kind = 'deposit.settled') as settled_events
         from deposits d`,
    );
    expect(deposits).toHaveLength(DEPOSITS);
    expect(deposits.every((d) => d.settled_events === 1)).toBe(true);

    for (const { chain, destination } of onramps) {
      const ofChain = deposits.filter((d) => d.chain === chain);
      const logs = (await chains.transferLogs(chain, 'USDC')).filter(
        (log) => log.to === destination,
      );
      expect(logs).toHaveLength(ofChain.length);
      expect(new Set(logs.map((l) => l.txHash))).toEqual(new Set(ofChain.map((d) => d.tx_hash)));
      expect(logs.reduce((sum, l) => sum + l.value, 0n)).toBe(
        ofChain.reduce((sum, d) => sum + toBaseUnits(d.amount_asset), 0n),
      );
    }

    // Nonces: per chain, every signed payout has its own, with no gap, and the row is next.
    const nonces = await sql<{
      chain: string;
      n: number;
      first: string;
      last: string;
      next: string;
    }>(
      databaseUrl,
      `select po.chain, count(*)::int as n, min(po.nonce)::text as first, max(po.nonce)::text as last,
              (select next_nonce::text from hot_wallet_nonces h where h.chain = po.chain) as next
         from payouts po group by po.chain order by po.chain`,
    );
    for (const row of nonces) {
      expect(Number(row.last) - Number(row.first) + 1).toBe(row.n);
      expect(Number(row.next)).toBe(Number(row.last) + 1);
    }
    expect(nonces.reduce((sum, r) => sum + r.n, 0)).toBe(DEPOSITS);

    const report = await onrampCli(databaseUrl, ['ledger', 'check']);
    expect(String(report)).toContain('"ok": true');
    // A bound, not a speed assertion: about 25 s alone, three times that on a loaded machine.
  }, 180_000);
});
