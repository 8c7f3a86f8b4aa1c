// The dashboard's Address book panel in headless Chromium against a real gateway: the switch
// shows and changes require_address_book, an added address counts down from PENDING to ACTIVE,
// and removing it takes it out of the book (each checked through the REST API as well).
import type { Page } from 'playwright-core';
import { createTestDatabase } from '../support/db';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';
import { request } from '../support/http';
import { launchBrowser, textOf, waitForText, type Browser } from '../support/browser';

const DELAY_SECONDS = 4;
const ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const exact = { exact: true } as const;

describe('dashboard address book panel', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let key: string;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    [stack, { api_key: key }, browser] = await Promise.all([
      startStack(databaseUrl, {
        runners: 0,
        env: { RATE_LIMIT_PER_MINUTE: '100000', WITHDRAWAL_ADDRESS_DELAY_SECONDS: '4' },
      }),
      createMerchant(databaseUrl, 'Panel Co'),
      launchBrowser(),
    ]);
    page = browser.page;
    page.setDefaultTimeout(15_000);
  }, 90_000);
  afterAll(async () => {
    await Promise.all([browser?.close(), stack?.stop()]);
  });

  const rest = (method: string, path: string) => request(stack.url, method, path, { key });

  it('switches the setting, counts an address down to ACTIVE and removes it', async () => {
    await page.goto(`${stack.url}/dashboard`);
    await page.getByLabel('Secret API key', exact).fill(key);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const panel = page.getByRole('region', { name: 'Address book', exact: true });
    await panel.waitFor();

    // The sandbox's default is off; the switch turns it on for the merchant.
    const toggle = panel.getByRole('checkbox');
    await eventually(async () => ((await toggle.isChecked()) ? undefined : true));
    // The panel's first load can land after the click and show the stored (off) setting again:
    // click until the switch stays on (Playwright throws when a click does not change it).
    await eventually(async () => {
      try {
        await toggle.check({ timeout: 2_000 });
        return true;
      } catch {
        return undefined;
      }
    });
    await eventually(async () => {
      const settings = await rest('GET', '/v1/merchant/settings');
      return settings.body.require_address_book === true ? true : undefined;
    });

    await panel.getByLabel('Chain', exact).selectOption('POLYGON');
    await panel.getByLabel('Address', exact).fill(ADDRESS.toLowerCase());
    await panel.getByLabel('Label (optional)', exact).fill('cold wallet');
    await panel.getByRole('button', { name: 'Add', exact: true }).click();
    const row = panel.locator('tbody tr', { hasText: ADDRESS });
    await waitForText(row.locator('td').nth(3), 'PENDING');
    const countdown = await textOf(row.locator('td').nth(4));
    expect(countdown).toMatch(/^0:0[0-4]$/);
    expect(await textOf(row.locator('td').nth(2))).toBe('cold wallet');
    // The countdown runs out and the row turns ACTIVE without a reload.
    await waitForText(row.locator('td').nth(3), 'ACTIVE', (DELAY_SECONDS + 5) * 1000);
    const listed = await rest('GET', '/v1/merchant/withdrawal_addresses');
    expect(listed.body.withdrawal_addresses).toEqual([
      expect.objectContaining({ chain: 'POLYGON', address: ADDRESS, status: 'ACTIVE' }),
    ]);

    await row.getByRole('button', { name: 'Remove', exact: true }).click();
    await row.waitFor({ state: 'detached' });
    expect(
      (await rest('GET', '/v1/merchant/withdrawal_addresses')).body.withdrawal_addresses,
    ).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  }, 60_000);

  it('turning the setting off waits its delay, shown as pending; turning it on again cancels', async () => {
    const panel = page.getByRole('region', { name: 'Address book', exact: true });
    const toggle = panel.getByRole('checkbox');
    const waiting = panel.getByRole('list', { name: 'Pending changes' });
    await eventually(async () => ((await toggle.isChecked()) ? true : undefined));

    await toggle.uncheck();
    await waitForText(waiting, /require_address_book becomes false at/);
    await waitForText(panel.getByRole('status'), /Turning the address book off takes effect at/);
    // The switch shows what was asked; the session's change is held like a key's.
    expect(await toggle.isChecked()).toBe(false);
    const held = await rest('GET', '/v1/merchant/settings');
    expect({ on: held.body.require_address_book, pending: held.body.pending_changes }).toEqual({
      on: true,
      pending: [{ field: 'require_address_book', value: false, effective_at: expect.any(String) }],
    });

    // Asking for it on again is a tightening: immediate, and the pending change is gone.
    await toggle.check();
    await eventually(async () => ((await waiting.isHidden()) ? true : undefined));
    const cancelled = await rest('GET', '/v1/merchant/settings');
    expect({
      on: cancelled.body.require_address_book,
      pending: cancelled.body.pending_changes,
    }).toEqual({ on: true, pending: [] });
    expect(browser.pageErrors).toEqual([]);
  }, 60_000);
});
