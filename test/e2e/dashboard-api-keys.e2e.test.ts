// The dashboard's API keys panel in a real browser: create a restricted key (its secret shown
// once), use it, revoke it; a session opened with a restricted key does not see the panel.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { createTestDatabase } from '../support/db';
import { request } from '../support/http';
import { createMerchant, startStack, type Stack } from '../support/stack';
import { artifactsDir, launchBrowser, textOf, waitForText, type Browser } from '../support/browser';

const exact = { exact: true } as const;

describe('dashboard API keys panel (Chromium)', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let key: string;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    ({ api_key: key } = await createMerchant(databaseUrl, 'Panel Co'));
    browser = await launchBrowser();
    page = browser.page;
    // Revoke asks for confirmation.
    page.on('dialog', (dialog) => void dialog.accept());
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  async function signIn(apiKey: string) {
    await page.goto(`${stack.url}/dashboard`);
    await page.getByLabel('Secret API key', exact).fill(apiKey);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
  }

  it('creates a restricted key, shows its secret once, and revokes it', async () => {
    await signIn(key);
    const panel = page.getByRole('region', { name: 'API keys', exact: true });
    await panel.waitFor();
    // The operator's key is listed, without a name.
    await waitForText(panel.locator('tbody'), /issued by the operator/);

    await panel.getByLabel('Name', exact).fill('Reporting');
    await panel.getByLabel('deposits:read').check();
    await panel.getByRole('button', { name: 'Create key', exact: true }).click();
    const secret = await waitForText(panel.locator('#api-key-secret'), /^rk_test_/);
    await waitForText(panel.locator('tbody'), /Reporting/);
    expect(await textOf(panel.locator('tbody'))).not.toContain(secret);

    expect((await request(stack.url, 'GET', '/v1/deposits', { key: secret })).status).toBe(200);
    const refused = await request(stack.url, 'GET', '/v1/merchant/balance', { key: secret });
    expect(refused.body.error.code).toBe('insufficient_scope');

    await panel.screenshot({ path: join(artifactsDir('dashboard'), 'api-keys.png') });
    const row = panel.locator('tbody tr').filter({ hasText: 'Reporting' });
    await row.getByRole('button', { name: 'Revoke', exact: true }).click();
    await waitForText(panel.locator('tbody tr').filter({ hasText: 'Reporting' }), /Revoked/);
    expect((await request(stack.url, 'GET', '/v1/deposits', { key: secret })).status).toBe(401);
    expect(browser.pageErrors).toEqual([]);
  });

  it('hides the panel from a session opened with a restricted key', async () => {
    const created = await request(stack.url, 'POST', '/v1/api_keys', {
      key,
      body: { name: 'Viewer', scopes: ['deposits:read', 'rates:read', 'balance:read'] },
    });
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByLabel('Secret API key', exact).waitFor();
    await signIn(created.body.secret as string);
    expect(await page.locator('#api-keys-section').isHidden()).toBe(true);
    expect(browser.pageErrors).toEqual([]);
  });
});
