import type { MikroORM } from '@mikro-orm/postgresql';
import { SandboxBankTransfers } from '../../src/adapters/bank/sandbox-bank-transfers';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { PayerChoiceRefused, ResolutionLinkRefused } from '../../src/deposits';
import { createTestDatabase, openTestOrm } from '../support/db';
import { TEST_ENCRYPTION_KEY } from '../support/stack';
import { depositKit } from '../support/deposits';

const PAYER = { senderName: 'ADA OBI', senderAccount: '0123456789', senderBank: '058' };

/** The link service against real PostgreSQL with a clock moved by hand. */
describe('payer resolution links (real PostgreSQL, manual clock)', () => {
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;
  let serial = 0;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock('2026-10-01T09:00:00Z');
    services = createServices(loadConfig({ PUBLIC_URL: 'https://pay.example.com/' }), clock, {
      bankTransfers: new SandboxBankTransfers(),
    });
    kit = depositKit(orm, services, clock);
  });
  afterAll(async () => {
    await orm?.close();
  });

  const em = () => orm.em.fork();
  const tokenOf = (url: string) => url.split('/pay/resolve/')[1];
  const refusal = (run: Promise<unknown>) =>
    run.then(
      () => 'applied',
      (error: unknown) => {
        if (error instanceof ResolutionLinkRefused || error instanceof PayerChoiceRefused) {
          return error.refusal;
        }
        throw error;
      },
    );

  /** A FLAGGED unconverted deposit (a transfer after its onramp expired), from PAYER. */
  async function lateDeposit(merchantId: string) {
    const onramp = await kit.onramp(merchantId);
    clock.advance((services.config.ONRAMP_TTL_SECONDS + 1) * 1000);
    serial += 1;
    const outcome = await services.ingestion.receive(em(), {
      accountNumber: onramp.accountNumber,
      amountNgn: '20000',
      bankReference: `RSL-${Date.now()}-${serial}`,
      ...PAYER,
    });
    if (outcome.kind !== 'deposit') throw new Error('unmatched');
    expect(outcome.deposit.status).toBe('FLAGGED');
    return outcome.deposit;
  }

  it('links start with PUBLIC_URL and expire by the clock, to the second', async () => {
    const merchant = await kit.merchant();
    const deposit = await lateDeposit(merchant);
    const link = await services.resolutionLinks.create(em(), merchant, deposit.id, 300);
    expect(link.url).toMatch(/^https:\/\/pay\.example\.com\/pay\/resolve\/rsl_/);
    expect(link.expires_at).toBe(new Date(clock.now().getTime() + 300_000).toISOString());
    const token = tokenOf(link.url);
    clock.advance(299_000);
    expect((await services.resolutionLinks.view(em(), token)).return).toEqual({
      amountNgn: '20000.00',
      bankCode: '058',
      last4: '6789',
    });
    clock.advance(1_000);
    expect(await refusal(services.resolutionLinks.view(em(), token))).toBe('expired');
    expect(await refusal(services.resolutionLinks.choose(em(), token, 'return'))).toBe('expired');
    expect((await kit.reload(deposit.id)).status).toBe('FLAGGED');
  });

  it('two choices at once: one applies, the other finds the link used', async () => {
    const merchant = await kit.merchant();
    const deposit = await lateDeposit(merchant);
    const token = tokenOf(
      (await services.resolutionLinks.create(em(), merchant, deposit.id, 600)).url,
    );
    const outcomes = await Promise.all([
      refusal(services.resolutionLinks.choose(em(), token, 'return')),
      refusal(services.resolutionLinks.choose(em(), token, 'return')),
      refusal(services.resolutionLinks.choose(em(), token, 'return')),
    ]);
    expect(outcomes.sort()).toEqual(['applied', 'resolved', 'resolved']);
    expect((await kit.reload(deposit.id)).status).toBe('RETURNING');
    const [{ count }] = await em()
      .getConnection()
      .execute<Array<{ count: string }>>(
        'select count(*)::text as count from deposit_returns where deposit_id = ?',
        [deposit.id],
      );
    expect(count).toBe('1');
    const view = await services.resolutionLinks.view(em(), token);
    expect(view).toMatchObject({
      chosen: 'return',
      status: 'RETURNING',
      settle: null,
      return: null,
    });
  });

  it('settle is offered only when allowed and for an active merchant; a newer link supersedes', async () => {
    const merchant = await kit.merchant();
    await kit.rate('USDC');
    const deposit = await lateDeposit(merchant);
    const first = tokenOf(
      (await services.resolutionLinks.create(em(), merchant, deposit.id, 86_400)).url,
    );
    expect((await services.resolutionLinks.view(em(), first)).settle).toBeNull();
    expect(await refusal(services.resolutionLinks.choose(em(), first, 'settle'))).toBe(
      'not_offered',
    );
    expect(await refusal(services.resolutionLinks.choose(em(), first, 'both'))).toBe('invalid');

    await services.merchantSettings.update(
      em(),
      { merchantId: merchant, keyId: 'key_test' },
      { payer_resolution: { allow_settle: true } },
    );
    await kit.rate('USDC');
    const second = tokenOf(
      (await services.resolutionLinks.create(em(), merchant, deposit.id, 86_400)).url,
    );
    expect(await refusal(services.resolutionLinks.view(em(), first))).toBe('superseded');
    expect((await services.resolutionLinks.view(em(), second)).settle).toMatchObject({
      amount: expect.stringMatching(/^\d+\.\d{6}$/),
    });

    await services.operator.setMerchantFrozen(em(), 'test', merchant, true);
    expect((await services.resolutionLinks.view(em(), second)).settle).toBeNull();
    expect(await refusal(services.resolutionLinks.choose(em(), second, 'settle'))).toBe(
      'not_offered',
    );
  });

  it('production without PUBLIC_URL refuses to mint links', async () => {
    const production = createServices(
      loadConfig({ ONRAMP_ENV: 'production', ENCRYPTION_KEY: TEST_ENCRYPTION_KEY }),
      clock,
    );
    const merchant = await kit.merchant();
    const deposit = await lateDeposit(merchant);
    await expect(
      production.resolutionLinks.create(em(), merchant, deposit.id, undefined),
    ).rejects.toMatchObject({ code: 'service_unavailable', message: /PUBLIC_URL/ });
  });
});
