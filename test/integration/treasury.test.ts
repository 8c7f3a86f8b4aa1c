import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { formatEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { chainRegistryFromConfig } from '../../src/adapters/chain/chain-registry';
import { createServices, type Services } from '../../src/container';
import { TreasuryService, type TreasuryReport } from '../../src/ledger/treasury.service';
import { CHAINS } from '../../src/domain/assets';
import { DEPOSIT_STATUSES } from '../../src/domain/deposit-state-machine';
import { REASON } from '../../src/domain/deposit-reasons';
import { OPERATOR } from '../../src/domain/ledger';
import { dec } from '../../src/domain/money';
import { fromBaseUnits } from '../../src/domain/payout-rules';
import { LOCAL_HOT_WALLET_PRIVATE_KEY } from '../../src/embedded/local-chains';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import { startTestChains, type TestChains } from '../support/chains';
import { freePort } from '../support/free-port';

const HOT_WALLET = privateKeyToAccount(LOCAL_HOT_WALLET_PRIVATE_KEY).address;
const DESTINATION = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const BLOCKED = '0x00000000000000000000000000000000DeaDBeef';

describe('treasury report (real PostgreSQL, real anvil chains)', () => {
  let chains: TestChains;
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;
  let treasury: TreasuryService;
  let blocklistDir: string;

  beforeAll(async () => {
    chains = await startTestChains();
    blocklistDir = mkdtempSync(join(tmpdir(), 'onramp-blocklist-'));
    const blocklist = join(blocklistDir, 'blocklist.txt');
    writeFileSync(blocklist, `${BLOCKED}\n`);
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock('2026-08-01T09:00:00Z');
    services = createServices(loadConfig({ ...chains.env, RISK_BLOCKLIST_FILE: blocklist }), clock);
    kit = depositKit(orm, services, clock);
    treasury = new TreasuryService(clock, services.chains);
  });
  afterAll(async () => {
    await orm?.close();
    await chains?.stop();
    if (blocklistDir) rmSync(blocklistDir, { recursive: true, force: true });
  });

  const em = () => orm.em.fork();
  const accountOf = (report: TreasuryReport, id: string) =>
    report.accounts.find((a) => a.id === id)?.balance;
  /** The ledger part of a report, which a chain's trouble must not touch. */
  const ledgerPart = ({ hotWallets: _, ...rest }: TreasuryReport) => rest;

  /** Each local chain's hot-wallet entry matches what the chain itself says, read with viem. */
  async function expectLiveWallet(report: TreasuryReport, chain: (typeof CHAINS)[number]) {
    const entry = report.hotWallets.find((w) => w.chain === chain)!;
    const client = chains.publicClient(chain);
    const [native, usdc, usdt] = await Promise.all([
      client.getBalance({ address: HOT_WALLET }),
      chains.tokenBalance(chain, 'USDC', HOT_WALLET),
      chains.tokenBalance(chain, 'USDT', HOT_WALLET),
    ]);
    expect(native).toBeGreaterThan(0n);
    expect(usdc).toBeGreaterThan(0n);
    expect(usdt).toBeGreaterThan(0n);
    expect(entry).toEqual({
      chain,
      address: HOT_WALLET,
      blockNumber: expect.stringMatching(/^[0-9]+$/),
      native: formatEther(native),
      tokens: { USDC: fromBaseUnits(usdc), USDT: fromBaseUnits(usdt) },
      error: null,
    });
    expect(entry.tokens.USDC).toMatch(/^[0-9]+\.[0-9]{6}$/);
  }

  it('on an empty ledger: every figure zero, every operator account and deposit status listed', async () => {
    const report = await treasury.report(em());
    expect(report.asOf).toBe(clock.now().toISOString());
    expect(report.serviceOwned).toEqual({
      ngnClearing: '0.00',
      usdOwedToMerchants: '0.000000',
      usdOwedOnChain: '0.000000',
    });
    expect(report.excluded).toEqual({
      ngnSuspense: '0.00',
      ngnReturns: '0.00',
      ngnUnmatched: '0.00',
      usdSuspense: '0.000000',
    });
    expect(report.accounts).toEqual(
      Object.values(OPERATOR).map((a) => ({
        id: a.id,
        currency: a.currency,
        balance: a.currency === 'NGN' ? '0.00' : '0.000000',
      })),
    );
    expect(report.deposits.map((d) => [d.status, d.count, d.amountNgn])).toEqual(
      DEPOSIT_STATUSES.map((s) => [s, 0, '0.00']),
    );
    expect(report.hotWallets.map((w) => w.chain)).toEqual([...CHAINS]);
    for (const chain of CHAINS) await expectLiveWallet(report, chain);
  });

  it('separates service-owned funds from FAILED, FLAGGED, REVERSED and unmatched money, exactly', async () => {
    const merchant = await kit.merchant('Treasury Co');

    // SETTLED to the merchant's balance, then part of it asked for as a withdrawal.
    const settled = await kit.transfer((await kit.onramp(merchant)).accountNumber, '15000');
    expect(await services.settlement.settle(em(), settled.id)).toBe('SETTLED');
    await services.withdrawals.request(em(), merchant, {
      amount: '2.5',
      asset: 'USDT',
      chain: 'BASE',
      destination_address: DESTINATION,
    });

    // PENDING_FX: received, not converted yet.
    const pending = await kit.transfer((await kit.onramp(merchant)).accountNumber, '20000');
    expect(pending.status).toBe('PENDING_FX');

    // FAILED: below the minimum deposit.
    const failed = await kit.transfer((await kit.onramp(merchant)).accountNumber, '100');
    expect(failed).toMatchObject({ status: 'FAILED', failureReason: REASON.belowMinimum });

    // FLAGGED before FX: the transfer lands after the onramp expired.
    const late = await kit.onramp(merchant);
    clock.advance((services.config.ONRAMP_TTL_SECONDS + 1) * 1000);
    const expired = await kit.transfer(late.accountNumber, '17000.50');
    expect(expired).toMatchObject({ status: 'FLAGGED', flagReason: REASON.afterOnrampExpiry });

    // Unmatched: an account number no onramp ever held.
    const unmatched = await services.ingestion.receive(em(), {
      accountNumber: '0000000019',
      amountNgn: '5000',
      bankReference: 'TREASURY-UNMATCHED',
    });
    expect(unmatched.kind).toBe('unmatched');

    // AUTO_WITHDRAW converted and owed on-chain (payout not sent).
    const autoWithdraw = (to: string) =>
      kit.onramp(merchant, 'EPHEMERAL', undefined, {
        mode: 'AUTO_WITHDRAW',
        asset: 'USDC',
        chain: 'BASE',
        destinationAddress: to,
      });
    const owed = await kit.transfer((await autoWithdraw(DESTINATION)).accountNumber, '15000');
    expect(await services.settlement.settle(em(), owed.id)).toBe('PENDING_WITHDRAWAL');

    // FLAGGED after FX: risk review rejects the payout, its USD goes to suspense.
    const blocked = await kit.transfer((await autoWithdraw(BLOCKED)).accountNumber, '16000');
    expect(await services.settlement.settle(em(), blocked.id)).toBe('PENDING_WITHDRAWAL');
    const [payout] = await em()
      .getConnection()
      .execute<Array<{ id: string }>>('select id from payouts where deposit_id = ?', [blocked.id]);
    expect(await services.payouts.send(em(), payout.id)).toBe('rejected');

    // REVERSED after settlement: the merchant keeps the USD, the operator books the NGN loss.
    const reversed = await kit.transfer(
      (await kit.onramp(merchant)).accountNumber,
      '30000',
      'TREASURY-REVERSED',
    );
    expect(await services.settlement.settle(em(), reversed.id)).toBe('SETTLED');
    expect(await services.reversals.reverse(em(), 'TREASURY-REVERSED')).toMatchObject({
      reversed: true,
      deposit: { status: 'REVERSED' },
    });

    const [s, o, b, r] = await Promise.all(
      [settled, owed, blocked, reversed].map((d) => kit.reload(d.id)),
    );
    expect(b).toMatchObject({ status: 'FLAGGED', flagReason: REASON.riskRejected });
    const balance = await services.ledger.balance(em(), merchant, new Date(0));
    expect(balance.usdPendingWithdrawal).toBe('2.500000');

    const report = await treasury.report(em());
    expect(report.asOf).toBe(clock.now().toISOString());
    expect(report.serviceOwned).toEqual({
      ngnClearing: '20000.00',
      // Both buckets: available (less the withdrawal) plus the withdrawal still pending.
      usdOwedToMerchants: dec(s.amountAsset!).plus(r.amountAsset!).toFixed(6),
      usdOwedOnChain: o.amountAsset,
    });
    expect(dec(report.serviceOwned.usdOwedToMerchants)).toEqual(
      dec(balance.usdAvailable).plus(balance.usdPendingWithdrawal),
    );
    expect(report.excluded).toEqual({
      ngnSuspense: '17000.50',
      ngnReturns: '100.00',
      ngnUnmatched: '5000.00',
      usdSuspense: b.amountAsset,
    });

    // Raw accounts agree with the summary and reconcile (debit-normal = credit-normal).
    expect(accountOf(report, OPERATOR.ngnClearing.id)).toBe('20000.00');
    expect(accountOf(report, OPERATOR.ngnReversalLosses.id)).toBe('30000.00');
    expect(accountOf(report, OPERATOR.usdPayoutsPending.id)).toBe(o.amountAsset);
    expect(accountOf(report, OPERATOR.usdSuspense.id)).toBe(b.amountAsset);
    expect(report.accounts.map((a) => a.id)).toEqual(Object.values(OPERATOR).map((a) => a.id));
    for (const currency of ['NGN', 'USD'] as const) {
      const side = (normal: 'DEBIT' | 'CREDIT') =>
        Object.values(OPERATOR)
          .filter((a) => a.currency === currency && a.normalSide === normal)
          .reduce((sum, a) => sum.plus(accountOf(report, a.id)!), dec(0));
      const merchants = currency === 'USD' ? report.serviceOwned.usdOwedToMerchants : '0';
      expect(side('DEBIT').toFixed(6)).toBe(side('CREDIT').plus(merchants).toFixed(6));
    }
    // ngn_bank: every NGN received, less what FX sold and what reversals took back.
    expect(accountOf(report, OPERATOR.ngnBank.id)).toBe('12100.50');
    for (const account of report.accounts) {
      expect(account.balance).toMatch(account.currency === 'NGN' ? /\.[0-9]{2}$/ : /\.[0-9]{6}$/);
    }

    expect(report.deposits).toEqual([
      {
        status: 'PENDING_FX',
        count: 1,
        amountNgn: '20000.00',
        excluded: false,
        ngnHeldIn: OPERATOR.ngnClearing.id,
        ngnHeld: '20000.00',
      },
      {
        status: 'PENDING_WITHDRAWAL',
        count: 1,
        amountNgn: '15000.00',
        excluded: false,
        ngnHeldIn: null,
        ngnHeld: '0.00',
      },
      {
        status: 'SETTLED',
        count: 1,
        amountNgn: '15000.00',
        excluded: false,
        ngnHeldIn: null,
        ngnHeld: '0.00',
      },
      {
        status: 'FAILED',
        count: 1,
        amountNgn: '100.00',
        excluded: true,
        ngnHeldIn: OPERATOR.ngnReturns.id,
        ngnHeld: '100.00',
      },
      {
        status: 'FLAGGED',
        count: 2,
        amountNgn: '33000.50',
        excluded: true,
        ngnHeldIn: OPERATOR.ngnSuspense.id,
        ngnHeld: '17000.50',
      },
      {
        status: 'REVERSED',
        count: 1,
        amountNgn: '30000.00',
        excluded: true,
        ngnHeldIn: null,
        ngnHeld: '0.00',
      },
      ...(
        [
          ['RETURNING', OPERATOR.ngnReturns.id],
          ['RETURNED', null],
          ['RETURN_FAILED', OPERATOR.ngnSuspense.id],
        ] as const
      ).map(([status, ngnHeldIn]) => ({
        status,
        count: 0,
        amountNgn: '0.00',
        excluded: true,
        ngnHeldIn,
        ngnHeld: '0.00',
      })),
    ]);

    // Plain data: survives JSON as is.
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
    for (const chain of CHAINS) await expectLiveWallet(report, chain);
  });

  it.each([
    // Port 1: a privileged port nothing listens on (fetch would refuse it before connecting;
    // the chain client's node:http transport tries, and is refused).
    [
      'a blocked port',
      () => Promise.resolve(1),
      /^HTTP request failed\. connect ECONNREFUSED 127\.0\.0\.1:\d+$/,
    ],
    ['a closed port', freePort, /^HTTP request failed\. connect ECONNREFUSED 127\.0\.0\.1:\d+$/],
  ])(
    'a chain whose RPC URL is %s reports its error; the rest of the report is whole',
    async (_, port, error) => {
      const registry = chainRegistryFromConfig(
        loadConfig({ ...chains.env, POLYGON_RPC_URL: `http://127.0.0.1:${await port()}` }),
      );
      const report = await new TreasuryService(clock, registry).report(em());
      expect(report.hotWallets.find((w) => w.chain === 'POLYGON')).toEqual({
        chain: 'POLYGON',
        address: HOT_WALLET,
        blockNumber: null,
        native: null,
        tokens: { USDC: null, USDT: null },
        error: expect.stringMatching(error),
      });
      await expectLiveWallet(report, 'BASE');
      await expectLiveWallet(report, 'ETHEREUM');
      expect(ledgerPart(report)).toEqual(ledgerPart(await treasury.report(em())));
    },
  );

  describe('with a node that accepts connections and never answers', () => {
    let server: Server;
    let port: number;
    const sockets = new Set<Socket>();

    beforeAll(async () => {
      server = createServer((socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    });

    it('times the chain out and still answers for the others', async () => {
      const registry = chainRegistryFromConfig(
        loadConfig({ ...chains.env, ETHEREUM_RPC_URL: `http://127.0.0.1:${port}` }),
      );
      const started = Date.now();
      const report = await new TreasuryService(clock, registry, { chainTimeoutMs: 300 }).report(
        em(),
      );
      expect(Date.now() - started).toBeLessThan(4_000);
      expect(report.hotWallets.find((w) => w.chain === 'ETHEREUM')).toMatchObject({
        address: HOT_WALLET,
        native: null,
        tokens: { USDC: null, USDT: null },
        error: 'ETHEREUM node did not answer within 300 ms',
      });
      await expectLiveWallet(report, 'BASE');
      await expectLiveWallet(report, 'POLYGON');
      expect(ledgerPart(report)).toEqual(ledgerPart(await treasury.report(em())));
    });
  });

  it('lists an unconfigured chain with why it is unusable', async () => {
    const env = Object.fromEntries(
      Object.entries(chains.env).filter(([name]) => name !== 'BASE_RPC_URL'),
    );
    const report = await new TreasuryService(
      clock,
      chainRegistryFromConfig(loadConfig(env)),
    ).report(em());
    expect(report.hotWallets.map((w) => w.chain)).toEqual([...CHAINS]);
    expect(report.hotWallets[0]).toEqual({
      chain: 'BASE',
      address: null,
      blockNumber: null,
      native: null,
      tokens: { USDC: null, USDT: null },
      error: 'BASE_RPC_URL not set',
    });
    await expectLiveWallet(report, 'ETHEREUM');
    await expectLiveWallet(report, 'POLYGON');
    expect(ledgerPart(report)).toEqual(ledgerPart(await treasury.report(em())));
  });
});
