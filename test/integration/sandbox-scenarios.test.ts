import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { REASON } from '../../src/domain/deposit-reasons';
import { SandboxRateSource } from '../../src/adapters/fx/sandbox-rate-source';
import { RateSourceUnavailableError } from '../../src/adapters/fx/rate-source';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import { startTestChains, type TestChains } from '../support/chains';

const DESTINATION = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

/**
 * One sandbox merchant's fault scenario must not reach another merchant: two merchants side
 * by side, one with the scenario set, for every kind of scenario.
 */
describe('sandbox fault scenarios are scoped to the merchant that set them', () => {
  let chains: TestChains;
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;

  beforeAll(async () => {
    chains = await startTestChains();
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock('2026-08-01T09:00:00Z');
    services = createServices(loadConfig({ ...chains.env }), clock);
    kit = depositKit(orm, services, clock);
  });
  afterAll(async () => {
    await orm?.close();
    await chains?.stop();
  });

  const em = () => orm.em.fork();
  const current = (merchantId: string, to: 'USD' | 'USDC' = 'USD') =>
    services.rates.current(em(), { from: 'NGN', to }, merchantId);
  const createOnramp = (merchantId: string, rateId?: string) =>
    services.onramps.create(em(), merchantId, {
      type: rateId ? 'EPHEMERAL' : 'PERMANENT',
      user: { email: 'ada@example.com' },
      rateId,
      settlement: { mode: 'MERCHANT_BALANCE' },
    });
  const payoutOf = async (depositId: string) =>
    (
      await em()
        .getConnection()
        .execute<Array<{ id: string }>>('select id from payouts where deposit_id = ?', [depositId])
    )[0].id;

  /** A converted AUTO_WITHDRAW deposit whose payout is PENDING. */
  async function convertedDeposit(merchantId: string, chain: 'BASE' | 'ETHEREUM' = 'BASE') {
    const onramp = await kit.onramp(merchantId, 'EPHEMERAL', undefined, {
      mode: 'AUTO_WITHDRAW',
      asset: 'USDC',
      chain,
      destinationAddress: DESTINATION,
    });
    const deposit = await kit.transfer(onramp.accountNumber, '15000');
    expect(await services.settlement.settle(em(), deposit.id)).toBe('PENDING_WITHDRAWAL');
    return deposit;
  }

  it("rateSourceDown: the merchant's quotes run out, another's keep coming, publication goes on", async () => {
    const a = await kit.merchant('Down Co');
    const b = await kit.merchant('Up Co');
    const before = await kit.rate('USD');
    const beforeUsdc = await current(a, 'USDC');
    clock.advance(1000);
    await services.sandbox.set(em(), a, { rateSourceDown: true });

    // The rate job still publishes; only `a` does not see what it publishes.
    expect(await services.sandbox.isDeploymentRateSourceDown(em())).toBe(false);
    const after = await kit.rate('USD');
    expect((await current(b)).id).toBe(after.id);
    expect((await current(a)).id).toBe(before.id);
    // Setting it again keeps the first time: the newer rate stays hidden.
    await services.sandbox.set(em(), a, { rateSourceDown: true, riskReject: false });
    expect((await current(a)).id).toBe(before.id);
    // A rate published after the source went down is unavailable to `a` even by its id.
    const afterUsdc = await current(b, 'USDC');
    await expect(createOnramp(a, afterUsdc.id)).rejects.toMatchObject({
      code: 'rate_unavailable',
    });
    expect((await createOnramp(a, beforeUsdc.id)).onramp.merchantId).toBe(a);
    expect((await createOnramp(b, afterUsdc.id)).onramp.merchantId).toBe(b);

    // Once the last rate `a` can see expires: rate_unavailable for `a` only.
    clock.advance(services.config.RATE_TTL_SECONDS * 1000);
    const fresh = await kit.rate('USD');
    await expect(current(a)).rejects.toMatchObject({ code: 'rate_unavailable' });
    await expect(createOnramp(a)).rejects.toMatchObject({ code: 'rate_unavailable' });
    expect((await current(b)).id).toBe(fresh.id);
    expect((await createOnramp(b)).onramp.merchantId).toBe(b);

    await services.sandbox.set(em(), a, { rateSourceDown: false });
    expect((await current(a)).id).toBe(fresh.id);
    expect((await services.sandbox.get(em(), a)).rateSourceDownSince).toBeNull();
  });

  it("the operator's switch stops the rate source for everyone, audited once per change", async () => {
    const source = new SandboxRateSource({
      isDown: () => services.sandbox.isDeploymentRateSourceDown(em()),
    });
    await expect(source.marketRates()).resolves.toHaveProperty('USD');
    expect(await services.sandbox.setDeploymentRateSourceDown(em(), 'cli:test', true)).toBe(true);
    expect(await services.sandbox.setDeploymentRateSourceDown(em(), 'cli:test', true)).toBe(true);
    await expect(source.marketRates()).rejects.toBeInstanceOf(RateSourceUnavailableError);
    expect(await services.sandbox.setDeploymentRateSourceDown(em(), 'operator:ada', false)).toBe(
      false,
    );
    await expect(source.marketRates()).resolves.toHaveProperty('USD');
    const { entries } = await services.auditLog.list(em(), {
      targetId: 'rate_source_down',
      limit: 10,
    });
    expect(entries.map((e) => [e.actor, e.action, e.before, e.after])).toEqual([
      ['operator:ada', 'sandbox.rate_source_up', { enabled: true }, { enabled: false }],
      ['cli:test', 'sandbox.rate_source_down', { enabled: false }, { enabled: true }],
    ]);
  });

  it("fxFailure: the merchant's deposits fail FX, another's convert", async () => {
    const a = await kit.merchant('FX Down Co');
    const b = await kit.merchant('FX Up Co');
    await services.sandbox.set(em(), a, { fxFailure: 'PERMANENT' });
    const rate = await kit.rate('USDC');
    const [onA, onB] = [await kit.onramp(a, 'EPHEMERAL', rate.id), await kit.onramp(b)];
    const depositA = await kit.transfer(onA.accountNumber, '15000');
    const depositB = await kit.transfer(onB.accountNumber, '15000');
    expect(await services.settlement.settle(em(), depositA.id)).toBe('FAILED');
    expect(await services.settlement.settle(em(), depositB.id)).toBe('SETTLED');
    await services.sandbox.set(em(), a, { fxFailure: 'TEMPORARY' });
    const temporaryA = await kit.transfer(onA.accountNumber, '15000');
    const secondB = await kit.transfer(onB.accountNumber, '15000');
    expect(await services.settlement.settle(em(), temporaryA.id)).toBe('FLAGGED');
    expect(await services.settlement.settle(em(), secondB.id)).toBe('SETTLED');
  });

  it("riskReject: the merchant's payouts are rejected, another's are signed", async () => {
    const a = await kit.merchant('Risky Co');
    const b = await kit.merchant('Safe Co');
    await services.sandbox.set(em(), a, { riskReject: true });
    const depositA = await convertedDeposit(a);
    const depositB = await convertedDeposit(b);
    expect(await services.payouts.send(em(), await payoutOf(depositA.id))).toBe('rejected');
    expect(await kit.reload(depositA.id)).toMatchObject({
      status: 'FLAGGED',
      flagReason: REASON.riskRejected,
    });
    expect(await services.payouts.send(em(), await payoutOf(depositB.id))).toBe('signed');
  });

  it("chainOutage: the merchant's payouts on that chain wait, another's on it are signed", async () => {
    const a = await kit.merchant('Outage Co');
    const b = await kit.merchant('Online Co');
    await services.sandbox.set(em(), a, { chainOutage: ['ETHEREUM'] });
    const depositA = await convertedDeposit(a, 'ETHEREUM');
    const depositB = await convertedDeposit(b, 'ETHEREUM');
    expect(await services.payouts.send(em(), await payoutOf(depositA.id))).toBe('waiting');
    expect(await services.payouts.send(em(), await payoutOf(depositB.id))).toBe('signed');
    expect(await services.chainHealth.unavailable(em(), 'ETHEREUM', a)).toMatch(/chainOutage/);
    expect(await services.chainHealth.unavailable(em(), 'ETHEREUM', b)).toBeNull();
  });
});
