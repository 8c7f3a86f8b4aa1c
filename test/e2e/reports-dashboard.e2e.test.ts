// The dashboard's Reports panel in headless Chromium against the real processes: the session
// (cookie and CSRF token, no API key in the page) downloads deposits.csv and ledger.csv for the
// current Lagos month, the file holds the merchant's deposits, and a range the API refuses
// shows the API's message.
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { createTestDatabase } from '../support/db';
import { createMerchant, startStack, type Stack } from '../support/stack';
import { request } from '../support/http';
import { balanceOnramp, createOnramp, freshRate, sandboxTransfer } from '../support/onramps';
import { launchBrowser, waitForText, type Browser } from '../support/browser';

const exact = { exact: true } as const;

/** The current month in Africa/Lagos (UTC+1, no daylight saving), computed apart from src/. */
function lagosMonth(): { from: string; to: string } {
  const lagos = new Date(Date.now() + 3_600_000);
  const y = lagos.getUTCFullYear();
  const m = lagos.getUTCMonth();
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const mm = String(m + 1).padStart(2, '0');
  return { from: `${y}-${mm}-01`, to: `${y}-${mm}-${String(last).padStart(2, '0')}` };
}

describe('dashboard reports panel', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let key: string;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    [stack, { api_key: key }, browser] = await Promise.all([
      startStack(databaseUrl, { env: { RATE_LIMIT_PER_MINUTE: '100000' } }),
      createMerchant(databaseUrl, 'Reports Panel Co'),
      launchBrowser(),
    ]);
    page = browser.page;
    page.setDefaultTimeout(15_000);
  }, 90_000);
  afterAll(async () => {
    await Promise.all([browser?.close(), stack?.stop()]);
  });

  async function downloadFrom(panel: ReturnType<Page['getByRole']>, label: string) {
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      panel.getByRole('button', { name: label, exact: true }).click(),
    ]);
    const path = await file.path();
    return { name: file.suggestedFilename(), text: readFileSync(path, 'utf8') };
  }

  it('downloads the two deposits as CSV with the session, and shows a refused range', async () => {
    const rate = await freshRate(stack.url, key);
    const onramp = await createOnramp(stack.url, key, balanceOnramp(rate.rate_id, 'EPHEMERAL'));
    const account = onramp.virtual_account.account_number;
    const first = await sandboxTransfer(stack.url, key, account, '5000.00', 'REPORT-REF-1');
    const second = await sandboxTransfer(stack.url, key, account, '7500.50', 'REPORT-REF-2');

    await page.goto(`${stack.url}/dashboard`);
    await page.getByLabel('Secret API key', exact).fill(key);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const panel = page.getByRole('region', { name: 'Reports', exact: true });
    await panel.waitFor();
    const month = lagosMonth();
    expect(await panel.getByLabel('From', exact).inputValue()).toBe(month.from);
    expect(await panel.getByLabel('To', exact).inputValue()).toBe(month.to);

    const deposits = await downloadFrom(panel, 'Download deposits.csv');
    // The name the server's Content-Disposition gave.
    expect(deposits.name).toBe(`deposits-${month.from}-${month.to}.csv`);
    const rows = parse(deposits.text, { columns: true, bom: true }) as Array<
      Record<string, string>
    >;
    expect(rows.map((r) => [r.deposit_id, r.bank_reference, r.amount_ngn]).sort()).toEqual(
      [
        [first.deposit_id, 'REPORT-REF-1', '5000.00'],
        [second.deposit_id, 'REPORT-REF-2', '7500.50'],
      ].sort(),
    );
    await waitForText(panel.getByRole('status'), `Downloaded ${deposits.name}.`);

    const ledger = await downloadFrom(panel, 'Download ledger.csv');
    expect(ledger.name).toMatch(/^ledger-.*\.csv$/);
    expect(ledger.text.split('\r\n')[0]).toContain('deposit_id');

    // More than 366 days: the API's own message, and no file.
    await panel.getByLabel('From', exact).fill('2024-01-01');
    await panel.getByRole('button', { name: 'Download deposits.csv', exact: true }).click();
    await waitForText(panel.getByRole('alert'), /at most 366 days/);
    expect(await panel.getByRole('status').textContent()).toBe('');

    // The cookie alone (no CSRF token) is not a credential on the report routes.
    const cookies = await browser.context.cookies(stack.url);
    const cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const bare = await request(
      stack.url,
      'GET',
      `/v1/reports/deposits.csv?from=${month.from}&to=${month.to}`,
      { headers: { cookie } },
    );
    expect(bare.status).toBe(401);
  });
});
