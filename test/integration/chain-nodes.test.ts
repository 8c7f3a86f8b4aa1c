import type { MikroORM } from '@mikro-orm/postgresql';
import pino from 'pino';
import { Writable } from 'node:stream';
import { Registry } from 'prom-client';
import { encodeAbiParameters, keccak256, parseEther, toHex, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import type { Chain } from '../../src/domain/assets';
import { lowBalanceThresholds } from '../../src/domain/hot-wallet-funds';
import { startAnvil, type AnvilProcess } from '../../src/embedded/anvil';
import { LOCAL_HOT_WALLET_PRIVATE_KEY } from '../../src/embedded/local-chains';
import { registerChainNodeMetrics } from '../../src/metrics/chain-nodes';
import { PayoutBlockFollower } from '../../src/payouts';
import { HealthService } from '../../src/system';
import { serveRunnerHttp } from '../../jobs/runner-http';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import { freePort, startTestChains, type TestChains } from '../support/chains';
import { eventually } from '../support/stack';

const DESTINATION = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const HOT_WALLET = privateKeyToAccount(LOCAL_HOT_WALLET_PRIVATE_KEY).address;
/** StableToken's `balanceOf` mapping is its fourth slot (name, symbol, totalSupply before it). */
const BALANCE_SLOT = 3n;

// Issue 35: several RPC nodes per chain (one stopped, one lagging) and the hot wallet's funds
// (payouts held, not failed, while it cannot pay them), on real anvil chains and real
// PostgreSQL. Gas spikes: payout-gas-spike.test.ts.
describe('chain nodes and hot-wallet funds (real PostgreSQL, real anvil chains)', () => {
  let chains: TestChains;
  let orm: MikroORM;
  let clock: ManualClock;
  let extra: AnvilProcess[] = [];
  const followers: PayoutBlockFollower[] = [];
  const lines: Array<Record<string, unknown>> = [];
  const log = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) {
          lines.push(JSON.parse(line) as Record<string, unknown>);
        }
        done();
      },
    }),
  );

  beforeAll(async () => {
    chains = await startTestChains();
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock('2026-08-01T09:00:00Z');
  });
  afterEach(async () => {
    await Promise.all(followers.map((f) => f.stop()));
    followers.length = 0;
    await Promise.all(extra.map((a) => a.stop()));
    extra = [];
  });
  afterAll(async () => {
    await orm?.close();
    await chains?.stop();
  });

  const em = () => orm.em.fork();
  const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
    orm.em.fork().getConnection().execute<T[]>(text, params);
  const rpc = <T = unknown>(chain: Chain, method: string, params: unknown[] = []) =>
    (chains.publicClient(chain).request as (args: unknown) => Promise<T>)({ method, params });
  function servicesWith(env: Record<string, string> = {}): Services {
    return createServices(loadConfig({ ...chains.env, ...env }), clock, { payoutSigningLog: log });
  }

  function follow(services: Services): void {
    const follower = new PayoutBlockFollower(
      services.chains,
      (tx, mined) => services.payouts.settleMined(tx, mined),
      undefined,
      services.payoutReorgs,
    );
    follower.start({ pollMs: 100, openEm: em, log });
    followers.push(follower);
  }

  /** A converted AUTO_WITHDRAW deposit whose payout is PENDING (not signed yet). */
  async function pendingPayout(services: Services, chain: Chain, ngn = '15000') {
    const kit = depositKit(orm, services, clock);
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant, 'EPHEMERAL', undefined, {
      mode: 'AUTO_WITHDRAW',
      asset: 'USDC',
      chain,
      destinationAddress: DESTINATION,
    });
    const deposit = await kit.transfer(onramp.accountNumber, ngn);
    expect(await services.settlement.settle(em(), deposit.id)).toBe('PENDING_WITHDRAWAL');
    const [payout] = await sql<{ id: string }>('select id from payouts where deposit_id = ?', [
      deposit.id,
    ]);
    return { kit, depositId: deposit.id, payoutId: payout.id };
  }

  const settled = (kit: ReturnType<typeof depositKit>, depositId: string) =>
    eventually(
      async () => {
        const d = await kit.reload(depositId);
        return d.status === 'SETTLED' ? d : undefined;
      },
      20_000,
      100,
    );

  async function metricsText(services: Services): Promise<string> {
    const registry = new Registry();
    registerChainNodeMetrics(registry, {
      gateways: () => services.chains.configured(),
      thresholds: (chain) => lowBalanceThresholds(services.config, chain),
      paused: (chain) => services.payouts.funds.paused(chain),
      log,
    });
    return registry.metrics();
  }

  /** A second BASE node of its own (its own state), mining nothing: it stays at its start. */
  async function idleBaseNode(): Promise<AnvilProcess> {
    const anvil = await startAnvil({ chain: 'BASE', port: await freePort(), blockTimeSeconds: 1 });
    extra.push(anvil);
    const request = (method: string, params: unknown[]) =>
      fetch(anvil.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
    await request('evm_setIntervalMining', [0]);
    await request('evm_setAutomine', [false]);
    return anvil;
  }

  it('(a) a stopped node is skipped: payouts settle through the next, and each node shows in the metrics', async () => {
    const stopped = await idleBaseNode();
    await stopped.stop();
    const live = chains.chain('BASE').rpcUrl;
    const services = servicesWith({ BASE_RPC_URL: '', BASE_RPC_URLS: `${stopped.rpcUrl},${live}` });
    const { kit, depositId, payoutId } = await pendingPayout(services, 'BASE');
    follow(services);
    expect(await services.payouts.send(em(), payoutId)).toBe('signed');
    await settled(kit, depositId);

    const [first, second] = services.chains.get('BASE')!.nodes();
    expect(first).toMatchObject({ node: 1, up: false, trusted: false });
    expect(first.detail).toMatch(/ECONNREFUSED/);
    expect(second).toMatchObject({ node: 2, up: true, trusted: true, lagBlocks: 0 });
    const text = await metricsText(services);
    const host = (url: string) => new URL(url).host;
    expect(text).toContain(
      `onramp_chain_node_up{chain="BASE",node="1",host="${host(stopped.rpcUrl)}"} 0`,
    );
    expect(text).toContain(`onramp_chain_node_up{chain="BASE",node="2",host="${host(live)}"} 1`);
    expect(text).toMatch(
      new RegExp(`onramp_chain_node_head\\{chain="BASE",node="2",host="${host(live)}"\\} \\d+`),
    );

    // The runner's /health shows each node (and stays 200: a chain's nodes do not fail it).
    const http = await serveRunnerHttp({
      host: '127.0.0.1',
      port: 0,
      log,
      probes: {
        phase: () => 'running',
        orm: () => orm,
        health: new HealthService(),
        registry: () => new Registry(),
      },
      chainNodes: () => services.chains.configured(),
    });
    try {
      const response = await fetch(`${http.url}/health`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        chains: Record<string, { nodes: Array<Record<string, unknown>> }>;
      };
      expect(body.chains.BASE.nodes).toEqual([
        expect.objectContaining({ node: 1, host: host(stopped.rpcUrl), up: false, trusted: false }),
        expect.objectContaining({
          node: 2,
          host: host(live),
          up: true,
          trusted: true,
          lag_blocks: 0,
        }),
      ]);
      expect(body.chains.BASE.nodes[1].head).toMatch(/^\d+$/);
    } finally {
      await http.close();
    }
  });

  it('(b) a node far behind the others is not trusted, even listed first: payouts settle from the one ahead', async () => {
    const lagging = await idleBaseNode();
    await rpc('BASE', 'anvil_mine', [toHex(20)]);
    const live = chains.chain('BASE').rpcUrl;
    const services = servicesWith({ BASE_RPC_URL: '', BASE_RPC_URLS: `${lagging.rpcUrl},${live}` });
    const gateway = services.chains.get('BASE')!;
    const head = await gateway.head();
    expect(head).toBe(await chains.publicClient('BASE').getBlockNumber());
    const [behind, ahead] = gateway.nodes();
    expect(behind).toMatchObject({ up: true, trusted: false });
    expect(behind.lagBlocks).toBeGreaterThan(services.config.RPC_MAX_LAG_BLOCKS);
    expect(behind.detail).toMatch(/blocks behind the highest head/);
    expect(ahead).toMatchObject({ up: true, trusted: true });

    const { kit, depositId, payoutId } = await pendingPayout(services, 'BASE');
    follow(services);
    expect(await services.payouts.send(em(), payoutId)).toBe('signed');
    const deposit = await settled(kit, depositId);
    // Mined on the chain ahead; the lagging node never saw it.
    const receipt = await chains
      .publicClient('BASE')
      .getTransactionReceipt({ hash: deposit.txHash as Hex });
    expect(receipt.status).toBe('success');
    expect(await metricsText(services)).toContain(
      `onramp_chain_node_trusted{chain="BASE",node="1",host="${new URL(lagging.rpcUrl).host}"} 0`,
    );
  });

  it('(c) payouts wait PENDING while the hot wallet lacks gas or tokens, with an alert, and go once it is funded', async () => {
    const services = servicesWith();
    const client = chains.publicClient('POLYGON');
    const native = await client.getBalance({ address: HOT_WALLET });
    const usdc = chains.chain('POLYGON').tokens.USDC;
    const slot = keccak256(
      encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [HOT_WALLET, BALANCE_SLOT]),
    );
    const tokenBalance = await rpc<Hex>('POLYGON', 'eth_getStorageAt', [usdc, slot, 'latest']);
    try {
      // No gas: nothing is signed; the payout stays PENDING.
      await rpc('POLYGON', 'anvil_setBalance', [HOT_WALLET, toHex(1000n)]);
      const gasShort = await pendingPayout(services, 'POLYGON');
      const totals = await services.payouts.signPending(em(), 'POLYGON');
      expect(totals.signed).toBe(0);
      const [row] = await sql<{ status: string }>('select status from payouts where id = ?', [
        gasShort.payoutId,
      ]);
      expect(row.status).toBe('PENDING');
      expect(
        lines.some((l) => l.alert === 'payouts_paused_low_balance' && l.chain === 'POLYGON'),
      ).toBe(true);
      expect(lines.some((l) => l.alert === 'hot_wallet_low_balance' && l.chain === 'POLYGON')).toBe(
        true,
      );
      let text = await metricsText(services);
      expect(text).toContain('onramp_payouts_paused{chain="POLYGON"} 1');
      expect(text).toContain('onramp_hot_wallet_low{chain="POLYGON",asset="native"} 1');
      expect(text).toMatch(/onramp_hot_wallet_balance\{chain="POLYGON",asset="USDC"\} \d+/);

      // Gas back, but 5 USDC where the payout needs about 10: still waiting.
      await rpc('POLYGON', 'anvil_setBalance', [HOT_WALLET, toHex(parseEther('100'))]);
      await rpc('POLYGON', 'anvil_setStorageAt', [usdc, slot, toHex(5_000_000n, { size: 32 })]);
      await rpc('POLYGON', 'evm_mine');
      expect((await services.payouts.signPending(em(), 'POLYGON')).signed).toBe(0);
      text = await metricsText(services);
      expect(text).toContain('onramp_hot_wallet_low{chain="POLYGON",asset="USDC"} 1');

      // Funded: the next round signs it, and it settles.
      await rpc('POLYGON', 'anvil_setStorageAt', [usdc, slot, tokenBalance]);
      await rpc('POLYGON', 'evm_mine');
      follow(services);
      expect((await services.payouts.signPending(em(), 'POLYGON')).signed).toBe(1);
      await settled(gasShort.kit, gasShort.depositId);
      expect(await metricsText(services)).toContain('onramp_payouts_paused{chain="POLYGON"} 0');
      expect(
        lines.some((l) => l.alert === 'payouts_paused_low_balance' && l.resolved === true),
      ).toBe(true);
    } finally {
      await rpc('POLYGON', 'anvil_setBalance', [HOT_WALLET, toHex(native)]);
      await rpc('POLYGON', 'anvil_setStorageAt', [usdc, slot, tokenBalance]);
    }
  });
});
