import { resolutionLinkKey } from '../../src/crypto/resolution-link-key';
import { signResolutionToken } from '../../src/domain/resolution-token';
import { launchBrowser, type Browser } from '../support/browser';
import { createTestDatabase } from '../support/db';
import { graphql, request } from '../support/http';
import { balanceOnramp, createOnramp, freshRate, sandboxTransfer } from '../support/onramps';
import { sql } from '../support/sql';
import {
  createMerchant,
  eventually,
  startStack,
  TEST_ENCRYPTION_KEY,
  type Stack,
} from '../support/stack';
import { verifyWebhook, WebhookReceiver } from '../support/webhook-receiver';

// GraphQL answers are whatever the server sent; the tests assert on their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

/**
 * Payer resolution links through the processes and a real browser: the merchant asks for a
 * link to a FLAGGED deposit, the payer opens it in headless Chromium and chooses; the runner
 * carries the choice out and the merchant's webhooks say so, signed.
 */
describe('payer resolution links (headless Chromium)', () => {
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  let secret: string;
  let browser: Browser;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      // allow_settle true waits this long (issue 32).
      env: {
        RATE_LIMIT_PER_MINUTE: '100000',
        RETURN_FEE_NGN: '100',
        WITHDRAWAL_ADDRESS_DELAY_SECONDS: '1',
      },
    });
    key = (await createMerchant(databaseUrl, 'Links <b>Co</b>')).api_key;
    await receiver.start();
    const set = await graphql<Loose>(
      stack.url,
      key,
      'mutation($u: String!) { setWebhookEndpoint(url: $u) { secret } }',
      { u: receiver.url },
    );
    secret = set.body.data.setWebhookEndpoint.secret;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await receiver.stop();
  });

  /** A FLAGGED sandbox deposit: the second transfer to a THROWAWAY onramp. */
  async function flaggedDeposit(): Promise<string> {
    const rate = await freshRate(stack.url, key);
    const onramp = await createOnramp(stack.url, key, balanceOnramp(rate.rate_id, 'THROWAWAY'));
    const account = onramp.virtual_account.account_number;
    const first = await sandboxTransfer(stack.url, key, account, '20000');
    await eventually(async () =>
      (await statusOf(first.deposit_id)) === 'SETTLED' ? true : undefined,
    );
    const second = await sandboxTransfer(stack.url, key, account, '5000');
    expect(second.status).toBe('FLAGGED');
    return second.deposit_id;
  }
  /** The full account the payer paid from: what he knows and the merchant does not. */
  const payerAccountOf = async (id: string) =>
    (
      await sql<{ sender_account: string }>(
        databaseUrl,
        'select sender_account from deposits where id = $1',
        [id],
      )
    )[0].sender_account;
  /** Every link this file makes: none of their tokens may reach a log line. */
  const issued: string[] = [];
  const statusOf = async (id: string) =>
    (await request(stack.url, 'GET', `/v1/deposits/${id}`, { key })).body.status as string;
  const linkFor = async (id: string, body?: unknown) => {
    const answer = await request(stack.url, 'POST', `/v1/deposits/${id}/resolution_link`, {
      key,
      body,
    });
    if (typeof answer.body?.url === 'string')
      issued.push(answer.body.url.split('/pay/resolve/')[1]);
    return answer;
  };
  const eventsFor = (id: string) =>
    receiver.received
      .map((raw) => verifyWebhook(secret, raw) as { event: string; data: { deposit_id?: string } })
      .filter((e) => e.data.deposit_id === id)
      .map((e) => e.event);
  /** What the page's form sends, without following the redirect. */
  const postForm = (url: string, body: string) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
      redirect: 'manual',
    });
  const allowSettle = async (allow: boolean) => {
    const answer = await request(stack.url, 'PATCH', '/v1/merchant/settings', {
      key,
      body: { payer_resolution: { allow_settle: allow } },
    });
    expect(answer.status).toBe(200);
    // Allowing is a widening: it applies once its delay has passed (issue 32).
    await eventually(async () => {
      const read = await request(stack.url, 'GET', '/v1/merchant/settings', { key });
      return read.body.payer_resolution.allow_settle === allow ? true : undefined;
    });
  };

  it('the payer chooses a return: deposit.returned reaches the merchant, signed; the link is spent', async () => {
    const depositId = await flaggedDeposit();
    const link = await linkFor(depositId);
    expect(link.status).toBe(201);
    expect(link.body.url).toMatch(new RegExp(`^${stack.url}/pay/resolve/rsl_[^/]+$`));
    expect(Date.parse(link.body.expires_at) - Date.now()).toBeGreaterThan(86_000_000);

    const { page } = browser;
    const opened = await page.goto(link.body.url);
    expect(opened?.status()).toBe(200);
    const headers = opened!.headers();
    expect(headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(headers['cache-control']).toBe('no-store');
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['x-robots-tag']).toBe('noindex');
    // The merchant's name is shown as text, never as markup.
    expect(await page.locator('h1').innerText()).toContain('Links <b>Co</b>');
    expect(await page.locator('#amount').innerText()).toContain('5,000.00');
    expect(await page.locator('#reason').innerText()).toMatch(/single transfer/);
    // Settling is the merchant's decision (off by default): only the return is offered.
    expect(await page.locator('form#settle').count()).toBe(0);
    expect(await page.locator('form#return').innerText()).toMatch(/4,900\.00.*\*\*\*\*\d{4}/s);

    // A forged settle is refused: not offered.
    const forged = await postForm(link.body.url, 'choice=settle');
    expect(forged.status).toBe(400);
    expect(forged.headers.get('content-type')).toMatch(/text\/html/);
    expect(await statusOf(depositId)).toBe('FLAGGED');

    await page.locator('#account-return').fill(await payerAccountOf(depositId));
    await page.locator('form#return button').click();
    await page.locator('#chosen').waitFor();
    expect(await page.locator('#chosen').getAttribute('data-choice')).toBe('return');
    expect(browser.consoleErrors).toEqual([]);

    await eventually(async () => ((await statusOf(depositId)) === 'RETURNED' ? true : undefined));
    await eventually(async () =>
      eventsFor(depositId).includes('deposit.returned') ? true : undefined,
    );
    expect(eventsFor(depositId)).toEqual([
      'deposit.flagged',
      'deposit.returning',
      'deposit.returned',
    ]);
    const [attempt] = await sql<{ actor: string }>(
      databaseUrl,
      'select actor from deposit_returns where deposit_id = $1',
      [depositId],
    );
    expect(attempt.actor).toMatch(/^payer:link:rsl_/);

    // Used once: the page shows what was chosen, a second POST changes nothing.
    await page.reload();
    expect(await page.locator('#outcome').getAttribute('data-status')).toBe('RETURNED');
    const again = await postForm(link.body.url, 'choice=return');
    expect(again.status).toBe(303);
    // The deposit is no longer FLAGGED: no new link.
    expect((await linkFor(depositId)).status).toBe(400);
  });

  it('the payer settles when the merchant allows it: SETTLED on the balance', async () => {
    await allowSettle(true);
    try {
      const depositId = await flaggedDeposit();
      const link = await linkFor(depositId, { expires_in_seconds: 600 });
      expect(link.status).toBe(201);
      const { page } = browser;
      await page.goto(link.body.url);
      expect(await page.locator('form#settle').innerText()).toMatch(/\d+\.\d{6} USDC/);
      expect(await page.locator('form#return').count()).toBe(1);
      await page.locator('#account-settle').fill(await payerAccountOf(depositId));
      await page.locator('form#settle button').click();
      await page.locator('#chosen').waitFor();
      expect(await page.locator('#chosen').getAttribute('data-choice')).toBe('settle');
      await eventually(async () => ((await statusOf(depositId)) === 'SETTLED' ? true : undefined));
      await eventually(async () =>
        eventsFor(depositId).includes('deposit.settled') ? true : undefined,
      );
      const [audit] = await sql<{ actor: string; action: string }>(
        databaseUrl,
        `select actor, action from audit_log where target_id = $1`,
        [depositId],
      );
      expect(audit).toMatchObject({ action: 'deposit.payer_resolve_settle' });
      expect(audit.actor).toMatch(/^payer:link:rsl_/);
    } finally {
      await allowSettle(false);
    }
  });

  it('refuses altered, expired and superseded links with pages, never the deposit', async () => {
    const depositId = await flaggedDeposit();
    const older = (await linkFor(depositId)).body.url as string;
    const newer = (await linkFor(depositId)).body.url as string;
    const status = async (url: string) => {
      const answer = await fetch(url);
      const text = await answer.text();
      expect(answer.headers.get('content-type')).toMatch(/text\/html/);
      expect(text).not.toContain('5,000');
      return answer.status;
    };
    expect(await status(older)).toBe(410);
    const altered = newer.slice(0, -3) + (newer.endsWith('AAA') ? 'BBB' : 'AAA');
    expect(await status(altered)).toBe(404);
    expect(
      await status(newer.replace(/(rsl_\w+)\.(\d+)\./, (_, id, s) => `${id}.${Number(s) + 60}.`)),
    ).toBe(404);

    // A link signed with the deployment's key whose time is past: what yesterday's link is.
    const linkId = 'rsl_01JDQX7A8B9C0D1E2F3G4H5J6K';
    const expiresAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    await sql(
      databaseUrl,
      `insert into deposit_resolution_links (id, deposit_id, merchant_id, created_at, expires_at)
       select $1, id, merchant_id, now() - interval '1 day', $2 from deposits where id = $3`,
      [linkId, expiresAt, depositId],
    );
    const token = signResolutionToken(resolutionLinkKey({ ENCRYPTION_KEY: TEST_ENCRYPTION_KEY }), {
      linkId,
      expiresAt,
    });
    const expired = await browser.page.goto(`${stack.url}/pay/resolve/${token}`);
    expect(expired?.status()).toBe(410);
    expect(await browser.page.locator('#refusal').innerText()).toMatch(/expired/);
    expect(await browser.page.locator('form').count()).toBe(0);
    expect(await statusOf(depositId)).toBe('FLAGGED');
  });

  it('a deposit the merchant resolved meanwhile: the link shows where it stands', async () => {
    const depositId = await flaggedDeposit();
    const link = (await linkFor(depositId)).body.url as string;
    expect(
      (await request(stack.url, 'POST', `/v1/deposits/${depositId}/return`, { key })).status,
    ).toBe(200);
    const { page } = browser;
    await page.goto(link);
    expect(await page.locator('#resolved').count()).toBe(1);
    expect(await page.locator('form').count()).toBe(0);
    expect(['RETURNING', 'RETURNED']).toContain(
      await page.locator('#outcome').getAttribute('data-status'),
    );
    const late = await postForm(link, 'choice=return');
    expect(late.status).toBe(303);
  });

  it('the dashboard asks for a link from the FLAGGED deposit’s detail', async () => {
    const depositId = await flaggedDeposit();
    const { page } = browser;
    await page.goto(`${stack.url}/dashboard`);
    await page.getByLabel('Secret API key', { exact: true }).fill(key);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.locator(`tr[data-deposit-id="${depositId}"]`).getByRole('button').click();
    await page.locator('[data-action="resolution-link"]').click();
    const field = page.locator('[data-role="resolution-link"]');
    await field.waitFor();
    const url = await field.inputValue();
    issued.push(url.split('/pay/resolve/')[1]);
    expect(url).toMatch(new RegExp(`^${stack.url}/pay/resolve/rsl_`));
    expect((await fetch(url)).status).toBe(200);
    expect(browser.pageErrors).toEqual([]);
  });

  it('the request: bounds, FLAGGED only, the merchant’s own deposits, GraphQL too', async () => {
    const depositId = await flaggedDeposit();
    for (const bad of [299, 604_801, 'soon']) {
      const answer = await linkFor(depositId, { expires_in_seconds: bad });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('invalid_parameter');
    }
    // Idempotency-Key: the same link again, not a new one superseding it.
    const keyed = () =>
      request(stack.url, 'POST', `/v1/deposits/${depositId}/resolution_link`, {
        key,
        headers: { 'idempotency-key': `link-${depositId}` },
      });
    const once = await keyed();
    const twice = await keyed();
    expect(twice.headers.get('idempotent-replayed')).toBe('true');
    expect(twice.body.url).toBe(once.body.url);
    expect((await fetch(once.body.url)).status).toBe(200);
    const other = (await createMerchant(databaseUrl, 'Other Co')).api_key;
    const foreign = await request(stack.url, 'POST', `/v1/deposits/${depositId}/resolution_link`, {
      key: other,
    });
    expect(foreign.status).toBe(404);
    const answer = await graphql<Loose>(
      stack.url,
      key,
      'mutation($id: ID!) { createResolutionLink(depositId: $id, expiresInSeconds: 3600) { url expiresAt } }',
      { id: depositId },
    );
    expect(answer.body.data.createResolutionLink.url).toMatch(/\/pay\/resolve\/rsl_/);
    const settings = await graphql<Loose>(
      stack.url,
      key,
      '{ merchantSettings { payerResolution { allowSettle } } }',
    );
    expect(settings.body.data.merchantSettings.payerResolution).toEqual({ allowSettle: false });
    const updated = await graphql<Loose>(
      stack.url,
      key,
      'mutation { updateMerchantSettings(input: { payerResolution: { allowSettle: true } }) { payerResolution { allowSettle } } }',
    );
    // Pending until its delay passes; the setting keeps its old value meanwhile.
    expect(updated.body.data.updateMerchantSettings.payerResolution).toEqual({
      allowSettle: false,
    });
    await allowSettle(false);
  });

  it('only the payer chooses: the full account he paid from, never the merchant’s last 4', async () => {
    await allowSettle(true);
    try {
      const depositId = await flaggedDeposit();
      const link = (await linkFor(depositId)).body.url as string;
      const linkId = link.split('/pay/resolve/')[1].split('.')[0];
      const account = await payerAccountOf(depositId);
      // What the merchant sees of the payer: the last 4 digits.
      const deposit = await request(stack.url, 'GET', `/v1/deposits/${depositId}`, { key });
      const last4 = deposit.body.payer.account_number_last4 as string;
      expect(last4).toBe(account.slice(-4));
      expect(deposit.text).not.toContain(account);

      // The merchant, holding the link, settles "for the payer": refused.
      for (const body of ['choice=settle', `choice=settle&account_number=${last4}`]) {
        const answer = await postForm(link, body);
        expect(answer.status).toBe(400);
        expect(await answer.text()).toMatch(/10-digit number of the account you paid from/);
      }
      const guess = (account.startsWith('000000') ? '111111' : '000000') + last4;
      const wrong = await postForm(link, `choice=settle&account_number=${guess}`);
      expect(wrong.status).toBe(400);
      expect(await wrong.text()).toMatch(
        /not the account this transfer came from\. 4 tries are left/,
      );
      expect(await statusOf(depositId)).toBe('FLAGGED');

      // The payer, in the browser: his own number, grouped as he reads it, is accepted.
      const { page } = browser;
      await page.goto(link);
      await page.locator('#account-settle').fill(guess);
      await page.locator('form#settle button').click();
      await page.locator('#refusal').waitFor();
      expect(await page.locator('#refusal').getAttribute('data-status')).toBe('400');
      await page.goto(link);
      await page.locator('#account-settle').fill(account.replace(/^(\d{3})(\d{3})/, '$1 $2 '));
      await page.locator('form#settle button').click();
      await page.locator('#chosen').waitFor();
      expect(await page.locator('#chosen').getAttribute('data-choice')).toBe('settle');
      await eventually(async () => ((await statusOf(depositId)) === 'SETTLED' ? true : undefined));
      const [audit] = await sql<{ actor: string; after: Record<string, unknown> }>(
        databaseUrl,
        `select actor, after from audit_log
          where target_id = $1 and action = 'deposit.payer_resolve_settle'`,
        [depositId],
      );
      expect(audit.actor).toBe(`payer:link:${linkId}`);
      expect(audit.after).toMatchObject({ link_id: linkId, client_address: '127.0.0.1' });
    } finally {
      await allowSettle(false);
    }
  });

  it('five wrong account numbers lock every link of the deposit', async () => {
    const depositId = await flaggedDeposit();
    const first = (await linkFor(depositId)).body.url as string;
    const account = await payerAccountOf(depositId);
    const wrong = (n: number) => String((Number(account) + n) % 1e10).padStart(10, '0');
    for (const n of [1, 2, 3]) {
      expect((await postForm(first, `choice=return&account_number=${wrong(n)}`)).status).toBe(400);
    }
    const second = (await linkFor(depositId)).body.url as string;
    expect((await postForm(second, `choice=return&account_number=${wrong(4)}`)).status).toBe(400);
    const last = await postForm(second, `choice=return&account_number=${wrong(5)}`);
    expect(last.status).toBe(400);
    expect(await last.text()).toMatch(/can no longer be decided here/);
    const right = await postForm(second, `choice=return&account_number=${account}`);
    expect(right.status).toBe(403);
    const { page } = browser;
    expect((await page.goto(second))?.status()).toBe(403);
    expect(await page.locator('#locked').count()).toBe(1);
    expect(await page.locator('form').count()).toBe(0);
    expect(await statusOf(depositId)).toBe('FLAGGED');
  });

  it('no link’s token reaches a log line of any process', async () => {
    const depositId = await flaggedDeposit();
    const link = (await linkFor(depositId)).body.url as string;
    const token = link.split('/pay/resolve/')[1];
    // The page and the choice, and spellings a browser or a probe might send.
    for (const url of [
      link,
      `${link}?utm_source=sms`,
      `${stack.url}/PAY/RESOLVE/${token}`,
      `${link}/more`,
      `${stack.url}/pay/resolve/${token.replace(/\./g, '%2E')}`,
    ]) {
      await (await fetch(url)).text();
    }
    await postForm(link, 'choice=return&account_number=0000000000');
    await postForm(link, 'choice=nothing');
    await postForm(`${link}?x=1`, 'choice=return');
    await graphql<Loose>(
      stack.url,
      key,
      'mutation($id: ID!) { createResolutionLink(depositId: $id) { url } }',
      { id: depositId },
    ).then((answer) =>
      issued.push(answer.body.data.createResolutionLink.url.split('/pay/resolve/')[1]),
    );
    // Every process's lines up to here (lines are written in batches, at most 100 ms late).
    const marker = `links-logged-${Date.now()}`;
    await request(stack.url, 'GET', `/v1/deposits?${marker}=1`, { key });
    const lines = () => [...stack.gateways, ...stack.runners].flatMap((p) => p.logs);
    await eventually(async () => (lines().some((l) => l.includes(marker)) ? true : undefined));
    expect(lines().filter((l) => l.includes('/pay/resolve/[redacted]')).length).toBeGreaterThan(5);
    expect(issued.length).toBeGreaterThan(8);
    const leaks = lines().filter((line) =>
      issued.some((t) => line.includes(t) || line.includes(t.split('.')[2])),
    );
    expect(leaks).toEqual([]);
  });
});
