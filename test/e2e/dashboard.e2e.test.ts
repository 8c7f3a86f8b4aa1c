// The merchant dashboard in a real browser (headless Chromium) against the real processes: sign
// in with a secret key, the rate, an onramp, a deposit turning from PENDING_FX to SETTLED live
// (no reload), its status history, webhooks, a phone-sized screen, and the session cookie's
// protections checked from outside the browser.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ElementHandle, Locator, Page } from 'playwright-core';
import { createTestDatabase } from '../support/db';
import {
  baseEnv,
  createMerchant,
  startRunner,
  startStack,
  type RunningProcess,
  type Stack,
} from '../support/stack';
import { request, type HttpResponse } from '../support/http';
import { freshRate } from '../support/onramps';
import { artifactsDir, launchBrowser, textOf, waitForText, type Browser } from '../support/browser';

const ENV = { RATE_LIMIT_PER_MINUTE: '100000' };
const COOKIE = 'onramp_session';
/** A revealed Standard Webhooks secret (not a masked one: whsec_ and base64). */
const SECRET = /^whsec_[A-Za-z0-9+/]{16,}={0,2}$/;
const SHOTS = artifactsDir('dashboard');
const shot = (page: Page, name: string, fullPage = true) =>
  page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage });

const exact = { exact: true } as const;
const button = (scope: Page | Locator, name: string) =>
  scope.getByRole('button', { name, exact: true });
const region = (page: Page, name: string) => page.getByRole('region', { name, exact: true });

/** A 401 that answers nothing: the REST or the GraphQL error shape, never data. */
function expectUnauthorized(response: HttpResponse, what: string): void {
  const detail = `${what}: ${response.status} ${response.text.slice(0, 300)}`;
  expect({ what, status: response.status }).toEqual({ what, status: 401 });
  const body = response.body as {
    data?: unknown;
    error?: { code?: string };
    errors?: Array<{ extensions?: { code?: string } }>;
  };
  const rest = body?.error?.code === 'unauthorized';
  const graphql =
    Array.isArray(body?.errors) && body.errors[0]?.extensions?.code === 'UNAUTHORIZED';
  if (!rest && !graphql) throw new Error(`not an unauthorized error shape: ${detail}`);
  if (body?.data) throw new Error(`answered data without authentication: ${detail}`);
}

/**
 * The outermost elements that stick out past the right edge of the screen (the page should
 * scroll only inside its table wrappers), as `tag#id.class right=px`.
 */
async function tooWide(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const limit = document.documentElement.clientWidth + 1;
    const name = (el) =>
      el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
      (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
    const clipped = (el) => {
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        if (getComputedStyle(a).overflowX !== 'visible') return true;
      }
      return false;
    };
    const out = [];
    for (const el of document.body.querySelectorAll('*')) {
      const right = el.getBoundingClientRect().right;
      const parent = el.parentElement;
      if (right > limit && !clipped(el) && (!parent || parent.getBoundingClientRect().right <= limit)) {
        out.push(name(el) + ' in ' + (parent ? name(parent) : '-') + ' right=' + Math.round(right));
      }
    }
    return out.slice(0, 10);
  })()`);
}

describe('merchant dashboard in a browser', () => {
  let databaseUrl: string;
  let stack: Stack;
  let secondRunner: RunningProcess | undefined;
  let merchant: { merchant_id: string; api_key: string };
  let browser: Browser;
  let page: Page;
  let gateway: string;
  let csrfToken: string;
  let sessionCookie: string;
  let accountNumber: string;
  let depositId: string;

  const MERCHANT_NAME = 'Dashboard Merchant';

  beforeAll(async () => {
    for (const stale of ['failure.png', 'failure.html'])
      rmSync(join(SHOTS, stale), { force: true });
    databaseUrl = await createTestDatabase();
    [stack, merchant, browser] = await Promise.all([
      startStack(databaseUrl, { env: ENV }),
      createMerchant(databaseUrl, MERCHANT_NAME),
      launchBrowser(),
    ]);
    gateway = stack.url;
    page = browser.page;
    page.setDefaultTimeout(15_000);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([browser?.close(), stack?.stop(), secondRunner?.stop()]);
  });

  afterEach(() => {
    // What the page itself reported, for the failure message of whichever step broke.
    if (browser?.pageErrors.length) console.warn('page errors:', browser.pageErrors);
  });

  /**
   * One step of the walk-through: the steps share the page, so after a failure the later ones
   * stop at once (instead of each waiting out its timeouts), and the page at the moment of the
   * failure is kept as `failure.png` / `failure.html` next to the screenshots.
   */
  let failedStep: string | undefined;
  const step = (name: string, fn: () => Promise<void>, timeoutMs?: number) =>
    it(
      name,
      async () => {
        if (failedStep) throw new Error(`not run: the step "${failedStep}" failed`);
        try {
          await fn();
        } catch (error) {
          failedStep = name;
          await shot(page, 'failure').catch(() => undefined);
          await page
            .content()
            .then((html) => writeFileSync(join(SHOTS, 'failure.html'), html))
            .catch(() => undefined);
          throw error;
        }
      },
      timeoutMs,
    );

  /** Posts to /graphql as the page would, from outside the browser, with a chosen cookie/token. */
  const graphqlWithCookie = (cookie: string, csrf?: string) =>
    request(gateway, 'POST', '/graphql', {
      headers: { cookie, ...(csrf !== undefined ? { 'x-csrf-token': csrf } : {}) },
      body: { query: '{ merchant { id name } }' },
    });

  step(
    'serves the page from the gateway with its CSP; a wrong key shows an error and sets no cookie',
    async () => {
      const response = await page.goto(`${gateway}/dashboard`);
      expect(response?.status()).toBe(200);
      const csp = response?.headers()['content-security-policy'] ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");

      const keyInput = page.getByLabel('Secret API key', exact);
      await keyInput.waitFor();
      expect(await keyInput.getAttribute('type')).toBe('password');

      // Well-formed, but not a key: the merchant's own with its last character changed.
      const last = merchant.api_key.slice(-1);
      await keyInput.fill(`${merchant.api_key.slice(0, -1)}${last === 'a' ? 'b' : 'a'}`);
      const [answer] = await Promise.all([
        page.waitForResponse(
          (r) => r.url().endsWith('/dashboard/api/session') && r.request().method() === 'POST',
        ),
        button(page, 'Sign in').click(),
      ]);
      expect(answer.status()).toBe(401);
      const message = ((await answer.json()) as { error: { message: string } }).error.message;
      const alert = page.getByRole('alert').filter({ hasText: /\S/ }).first();
      await alert.waitFor();
      expect(await textOf(alert)).toContain(message);
      expect((await browser.context.cookies(gateway)).map((c) => c.name)).not.toContain(COOKIE);
      await shot(page, 'signed-out-error');
    },
  );

  step('signs in with the secret key and shows the rate', async () => {
    // The job runner publishes the first rate at start; the page shows it once there is one.
    await freshRate(gateway, merchant.api_key);
    await page.getByLabel('Secret API key', exact).fill(merchant.api_key);
    const [answer] = await Promise.all([
      page.waitForResponse(
        (r) => r.url().endsWith('/dashboard/api/session') && r.request().method() === 'POST',
      ),
      button(page, 'Sign in').click(),
    ]);
    expect(answer.status()).toBe(201);
    const session = (await answer.json()) as {
      csrf_token: string;
      merchant: { id: string; name: string; environment: string };
    };
    expect(session.merchant).toEqual({
      id: merchant.merchant_id,
      name: MERCHANT_NAME,
      environment: 'sandbox',
    });
    csrfToken = session.csrf_token;
    expect(csrfToken).toEqual(expect.any(String));

    await button(page, 'Sign out').waitFor();
    await page.locator('header').filter({ hasText: MERCHANT_NAME }).first().waitFor();
    for (const name of [
      'Rate',
      'Balance',
      'Onramps',
      'Deposits',
      'Webhooks',
      'Settled volume',
      'Sandbox',
    ]) {
      await page.getByRole('heading', { level: 2, name, exact: true }).waitFor();
    }
    await page.locator('#balance-available').waitFor();
    await page.locator('#balance-pending').waitFor();

    // The rate and its countdown ("expires in m:ss", ticking every second).
    const expiry = page.locator('#rate-expiry');
    const first = await waitForText(expiry, /expires in \d+:\d{2}/);
    await waitForText(region(page, 'Rate'), /\d+\.\d+/);
    await waitForText(expiry, (t) => /expires in \d+:\d{2}/.test(t) && t !== first, 5_000);
  });

  step('creates an onramp and lists it with its account number', async () => {
    const onramps = region(page, 'Onramps');
    await waitForText(onramps.getByLabel('Onramp type', exact), 'EPHEMERAL');
    await button(onramps, 'Create onramp').click();
    accountNumber = await waitForText(
      page.locator('#onramps-table tr[data-onramp-id] .account-number'),
      /^\d{10}$/,
    );
  });

  step(
    'shows a deposit as PENDING_FX, then SETTLED live in the same row, without a reload',
    async () => {
      // Settlement takes the runner ~100 ms: stop it so PENDING_FX stays long enough to be seen.
      await stack.runners[0].stop();
      await page.evaluate('window.__marker = 1');

      const sandbox = region(page, 'Sandbox');
      await sandbox.getByLabel('Account number', exact).fill(accountNumber);
      await sandbox.getByLabel('Amount (NGN)', exact).fill('25000');
      await button(sandbox, 'Simulate deposit').click();

      const rows = page.locator('#deposits-table tr[data-deposit-id]');
      await rows.first().waitFor();
      const row: ElementHandle = (await rows.first().elementHandle())!;
      depositId = (await row.getAttribute('data-deposit-id'))!;
      expect(depositId).toMatch(/\S/);
      const status = page.locator(`#deposits-table tr[data-deposit-id="${depositId}"] .status`);
      await waitForText(status, 'PENDING_FX');
      await shot(page, 'deposit-pending');

      secondRunner = await startRunner(baseEnv(databaseUrl, ENV));
      await waitForText(status, 'SETTLED', 20_000);
      await shot(page, 'deposits-live');

      // Updated in place: the same element, one row for the deposit, and the same document.
      expect(await page.evaluate('window.__marker')).toBe(1);
      expect(await row.evaluate((el: { isConnected: boolean }) => el.isConnected)).toBe(true);
      expect(
        await row.$eval('.status', (el: { textContent: string | null }) => el.textContent?.trim()),
      ).toBe('SETTLED');
      expect(await page.locator(`#deposits-table tr[data-deposit-id="${depositId}"]`).count()).toBe(
        1,
      );
      await page.getByRole('img', { name: 'Settled volume by day', exact: true }).waitFor();
    },
  );

  step("opens the deposit's details with its status history", async () => {
    const row = page.locator(`#deposits-table tr[data-deposit-id="${depositId}"]`);
    await button(row, 'Details').click();
    const detail = page.locator('#deposit-detail');
    await detail.getByRole('heading', { name: `Deposit ${depositId}`, exact: true }).waitFor();
    const history = detail.locator('li');
    await waitForText(history.last(), /^SETTLED\b/);
    const items = (await history.allTextContents()).map((t) => t.trim());
    const pending = items.findIndex((t) => /^PENDING_FX\b/.test(t));
    const settled = items.findIndex((t) => /^SETTLED\b/.test(t));
    expect({ items, pending: pending >= 0, inOrder: pending < settled }).toEqual({
      items,
      pending: true,
      inOrder: true,
    });
    await detail.scrollIntoViewIfNeeded();
    await shot(page, 'deposit-detail', false);
  });

  step('saves a webhook endpoint, reveals its secret and rotates it', async () => {
    const webhooks = region(page, 'Webhooks');
    await webhooks.getByLabel('Webhook URL', exact).fill('http://127.0.0.1:9/hooks');
    const mutation = (name: string) =>
      page.waitForResponse(
        (r) =>
          r.url().endsWith('/graphql') &&
          r.request().method() === 'POST' &&
          (r.request().postData() ?? '').includes(name),
      );
    const [saved] = await Promise.all([
      mutation('setWebhookEndpoint'),
      button(webhooks, 'Save endpoint').click(),
    ]);
    expect(saved.status()).toBe(200);

    await button(webhooks, 'Reveal secret').click();
    const secret = page.locator('#webhook-secret');
    const before = await waitForText(secret, SECRET);
    await button(webhooks, 'Rotate secret').click();
    const after = await waitForText(secret, (t) => SECRET.test(t) && t !== before);
    expect(after).not.toBe(before);
    await page.locator('#deliveries-table').waitFor({ state: 'attached' });
    await webhooks.scrollIntoViewIfNeeded();
    await shot(page, 'webhooks', false);
  });

  step('stays signed in across a reload and works on a phone-sized screen', async () => {
    await page.reload();
    await button(page, 'Sign out').waitFor();
    await page.setViewportSize({ width: 375, height: 812 });
    await page.locator(`#deposits-table tr[data-deposit-id="${depositId}"]`).waitFor();
    await waitForText(page.locator('#rate-expiry'), /expires in/);
    // Tables scroll inside their sections: the page itself is no wider than the screen.
    await shot(page, 'phone');
    const width = await page.evaluate<number>('document.documentElement.scrollWidth');
    if (width > 375) {
      const wider = (await tooWide(page)).join('; ') || '(none found outside scrollers)';
      throw new Error(`the page is ${width} px wide on a 375 px screen; sticking out: ${wider}`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  step(
    'keeps the session cookie HttpOnly and SameSite=Strict, and useless without the CSRF token',
    async () => {
      const cookie = (await browser.context.cookies(gateway)).find((c) => c.name === COOKIE);
      expect(cookie).toBeDefined();
      expect({
        httpOnly: cookie!.httpOnly,
        sameSite: cookie!.sameSite,
        path: cookie!.path,
      }).toEqual({
        httpOnly: true,
        sameSite: 'Strict',
        path: '/',
      });
      sessionCookie = `${COOKIE}=${cookie!.value}`;

      // The cookie with the right token is the merchant (so the refusals below mean something).
      const allowed = await graphqlWithCookie(sessionCookie, csrfToken);
      expect({ status: allowed.status, body: allowed.body }).toEqual({
        status: 200,
        body: { data: { merchant: { id: merchant.merchant_id, name: MERCHANT_NAME } } },
      });

      expectUnauthorized(await graphqlWithCookie(sessionCookie), 'cookie without X-CSRF-Token');
      expectUnauthorized(
        await graphqlWithCookie(sessionCookie, `${csrfToken.slice(0, -1)}x`),
        'cookie with a wrong X-CSRF-Token',
      );
      expectUnauthorized(
        await graphqlWithCookie(sessionCookie, ''),
        'cookie with an empty X-CSRF-Token',
      );
      expectUnauthorized(
        await request(gateway, 'GET', '/v1/merchant/balance', {
          headers: { cookie: sessionCookie },
        }),
        'REST with the cookie',
      );
    },
  );

  step('signs out: back to the sign-in form, and the old cookie no longer works', async () => {
    await button(page, 'Sign out').click();
    await page.getByLabel('Secret API key', exact).waitFor();
    await button(page, 'Sign in').waitFor();
    expect((await browser.context.cookies(gateway)).map((c) => c.name)).not.toContain(COOKIE);

    expectUnauthorized(
      await graphqlWithCookie(sessionCookie, csrfToken),
      'old cookie and CSRF token after sign-out',
    );
    expectUnauthorized(
      await request(gateway, 'GET', '/dashboard/api/session', {
        headers: { cookie: sessionCookie },
      }),
      'GET /dashboard/api/session after sign-out',
    );
  });

  it('loaded nothing from outside the gateway, and the page raised no errors', () => {
    const origin = new URL(gateway).host;
    const outside = browser.requests.filter((url) => {
      if (/^(data|blob|about):/.test(url)) return false;
      return new URL(url).host !== origin;
    });
    expect(outside).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
    expect(browser.consoleErrors.filter((m) => /Content Security Policy/i.test(m))).toEqual([]);
  });
});
