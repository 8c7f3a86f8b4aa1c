import type { MikroORM } from '@mikro-orm/postgresql';
import { SandboxBankTransfers } from '../../src/sandbox/sandbox-bank-transfers';
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
  const CLIENT = '203.0.113.7';
  /** The payer's form: his choice and the account he paid from. */
  const payer = (choice: string, accountNumber: unknown = PAYER.senderAccount) => ({
    choice,
    accountNumber,
    clientAddress: CLIENT,
  });
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
    expect(await refusal(services.resolutionLinks.choose(em(), token, payer('return')))).toBe(
      'expired',
    );
    expect((await kit.reload(deposit.id)).status).toBe('FLAGGED');
  });

  it('two choices at once: one applies, the other finds the link used', async () => {
    const merchant = await kit.merchant();
    const deposit = await lateDeposit(merchant);
    const token = tokenOf(
      (await services.resolutionLinks.create(em(), merchant, deposit.id, 600)).url,
    );
    const outcomes = await Promise.all([
      refusal(services.resolutionLinks.choose(em(), token, payer('return'))),
      refusal(services.resolutionLinks.choose(em(), token, payer('return'))),
      refusal(services.resolutionLinks.choose(em(), token, payer('return'))),
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
    expect(await refusal(services.resolutionLinks.choose(em(), first, payer('settle')))).toBe(
      'not_offered',
    );
    expect(await refusal(services.resolutionLinks.choose(em(), first, payer('both')))).toBe(
      'invalid',
    );

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
    expect(await refusal(services.resolutionLinks.choose(em(), second, payer('settle')))).toBe(
      'not_offered',
    );
  });

  it('only the payer’s full account number chooses; wrong ones lock the deposit’s links', async () => {
    const merchant = await kit.merchant();
    const deposit = await lateDeposit(merchant);
    const first = tokenOf(
      (await services.resolutionLinks.create(em(), merchant, deposit.id, undefined)).url,
    );
    // What the merchant knows (the last 4 digits) is not enough; missing or malformed is not
    // counted (it tells nothing), a well-formed wrong number is.
    const missing = { choice: 'return', accountNumber: undefined, clientAddress: CLIENT };
    expect(await refusal(services.resolutionLinks.choose(em(), first, missing))).toBe('no_account');
    for (const typed of [null, '', '6789', '01234567890', 'abcdefghij', ['0123456789']]) {
      expect(
        await refusal(services.resolutionLinks.choose(em(), first, payer('return', typed))),
      ).toBe('no_account');
    }
    const attempts = async () =>
      (
        await em()
          .getConnection()
          .execute<{ n: number }[]>(
            'select sum(failed_attempts)::int as n from deposit_resolution_links where deposit_id = ?',
            [deposit.id],
          )
      )[0].n;
    expect(await attempts()).toBe(0);
    const wrong = (token: string, typed: string) =>
      services.resolutionLinks.choose(em(), token, payer('return', typed)).then(
        () => null,
        (error: PayerChoiceRefused) => [error.refusal, error.attemptsLeft],
      );
    expect(await wrong(first, '1123456789')).toEqual(['wrong_account', 4]);
    expect(await wrong(first, '0123 456 788')).toEqual(['wrong_account', 3]);
    // A new link does not start the count again: they lock together.
    const second = tokenOf(
      (await services.resolutionLinks.create(em(), merchant, deposit.id, undefined)).url,
    );
    expect(await wrong(second, '9999999999')).toEqual(['wrong_account', 2]);
    expect(await wrong(second, '0000000000')).toEqual(['wrong_account', 1]);
    expect((await kit.reload(deposit.id)).status).toBe('FLAGGED');
    expect(await wrong(second, '1111111111')).toEqual(['wrong_account', 0]);
    expect(await attempts()).toBe(5);
    // Locked: even the right number chooses nothing now, and the page offers nothing.
    expect(await refusal(services.resolutionLinks.choose(em(), second, payer('return')))).toBe(
      'locked',
    );
    expect(await services.resolutionLinks.view(em(), second)).toMatchObject({
      locked: true,
      settle: null,
      return: null,
    });
    expect((await kit.reload(deposit.id)).status).toBe('FLAGGED');
    const [locked] = await em()
      .getConnection()
      .execute<{ actor: string; after: Record<string, unknown> }[]>(
        "select actor, after from audit_log where target_id = ? and action = 'deposit.payer_link_locked'",
        [deposit.id],
      );
    expect(locked.actor).toBe(`payer:link:${second.split('.')[0]}`);
    expect(locked.after).toMatchObject({ wrong_account_numbers: 5, client_address: CLIENT });
  });

  it('the audit entry of a link choice names the link and the client address', async () => {
    const merchant = await kit.merchant();
    const deposit = await lateDeposit(merchant);
    const token = tokenOf(
      (await services.resolutionLinks.create(em(), merchant, deposit.id, undefined)).url,
    );
    // Grouped as people write it: spaces and hyphens are dropped.
    await services.resolutionLinks.choose(em(), token, payer('return', '0123-456 789'));
    expect((await kit.reload(deposit.id)).status).toBe('RETURNING');
    const linkId = token.split('.')[0];
    const [entry] = await em()
      .getConnection()
      .execute<{ actor: string; action: string; after: Record<string, unknown> }[]>(
        "select actor, action, after from audit_log where target_id = ? and action like 'deposit.payer%'",
        [deposit.id],
      );
    expect(entry).toMatchObject({
      actor: `payer:link:${linkId}`,
      action: 'deposit.payer_resolve_return',
      after: { status: 'RETURNING', link_id: linkId, client_address: CLIENT },
    });
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
