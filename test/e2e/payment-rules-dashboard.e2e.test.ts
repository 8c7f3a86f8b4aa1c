// The dashboard's Payment rules panel and the payer on the deposit detail, in headless Chromium
// against a real gateway: the panel shows the defaults, saves new rules (checked through REST),
// and a deposit's detail shows the payer with the last four digits of the account only.
import type { Page } from 'playwright-core';
import { createTestDatabase } from '../support/db';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';
import { request } from '../support/http';
import { balanceOnramp, createOnramp, freshRate } from '../support/onramps';
import { launchBrowser, waitForText, type Browser } from '../support/browser';

const exact = { exact: true } as const;

describe('dashboard payment rules panel and deposit payer', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let key: string;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    [stack, { api_key: key }, browser] = await Promise.all([
      // A raised tolerance waits this long (issue 32).
      startStack(databaseUrl, {
        env: { RATE_LIMIT_PER_MINUTE: '100000', WITHDRAWAL_ADDRESS_DELAY_SECONDS: '3' },
      }),
      createMerchant(databaseUrl, 'Rules Panel Co'),
      launchBrowser(),
    ]);
    page = browser.page;
    page.setDefaultTimeout(15_000);
  }, 90_000);
  afterAll(async () => {
    await Promise.all([browser?.close(), stack?.stop()]);
  });

  const rest = (method: string, path: string, body?: unknown) =>
    request(stack.url, method, path, { key, body });

  it('saves the rules and shows the payer of a deposit', async () => {
    const rate = await freshRate(stack.url, key);
    const onramp = await createOnramp(stack.url, key, {
      ...balanceOnramp(rate.rate_id, 'THROWAWAY'),
      amount_ngn: '20000.00',
    });
    const deposit = await rest('POST', '/v1/sandbox/deposits', {
      account_number: onramp.virtual_account.account_number,
      amount_ngn: '20000.00',
      payer: { account_name: 'BELLO HALIMA', account_number: '9988776655', bank_code: '011' },
    });
    expect(deposit.status).toBe(201);

    await page.goto(`${stack.url}/dashboard`);
    await page.getByLabel('Secret API key', exact).fill(key);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const panel = page.getByRole('region', { name: 'Payment rules', exact: true });
    await panel.waitFor();
    const under = panel.getByRole('group', { name: 'Underpayment' });
    await eventually(async () =>
      (await under.getByLabel('Tolerance (NGN)').inputValue()) === '0.00' ? true : undefined,
    );
    expect(await under.getByLabel('Then').inputValue()).toBe('ACCEPT');

    await under.getByLabel('Tolerance (NGN)').fill('250.00');
    await under.getByLabel('Then').selectOption('FLAG');
    await panel.getByLabel(/Check the payer's name/).check();
    await panel.getByRole('button', { name: 'Save rules', exact: true }).click();
    await waitForText(panel.getByRole('status'), 'Payment rules saved.');
    // The stricter action and the name check apply now; the raised tolerance is shown waiting.
    const saved = await rest('GET', '/v1/merchant/settings');
    expect(saved.body).toMatchObject({
      underpayment: { tolerance_ngn: '0.00', tolerance_bps: 0, action: 'flag' },
      payer_name_check: { enabled: true, action: 'flag' },
      pending_changes: [{ field: 'underpayment.tolerance_ngn', value: '250.00' }],
    });
    const waiting = panel.getByRole('list', { name: 'Pending changes' });
    await waitForText(waiting, /underpayment\.tolerance_ngn becomes "250\.00" at/);
    expect(await under.getByLabel('Tolerance (NGN)').inputValue()).toBe('250.00');
    const settings = await eventually(async () => {
      const read = await rest('GET', '/v1/merchant/settings');
      return read.body.pending_changes.length === 0 ? read : undefined;
    });
    expect(settings.body).toMatchObject({
      underpayment: { tolerance_ngn: '250.00', tolerance_bps: 0, action: 'flag' },
      overpayment: { action: 'accept' },
      payer_name_check: { enabled: true, action: 'flag' },
    });

    // A refused value shows the server's message and changes nothing.
    await under.getByLabel('Tolerance (NGN)').fill('-5');
    await panel.getByRole('button', { name: 'Save rules', exact: true }).click();
    await waitForText(panel.getByRole('alert'), /tolerance_ngn/);
    expect((await rest('GET', '/v1/merchant/settings')).body.underpayment.tolerance_ngn).toBe(
      '250.00',
    );
    // Sending the money back is a choice like the others.
    await under.getByLabel('Tolerance (NGN)').fill('250.00');
    await under.getByLabel('Then').selectOption('RETURN');
    await panel.getByRole('button', { name: 'Save rules', exact: true }).click();
    await waitForText(panel.getByRole('status'), 'Payment rules saved.');
    expect((await rest('GET', '/v1/merchant/settings')).body.underpayment.action).toBe('return');

    const row = page.locator(`tr[data-deposit-id="${deposit.body.deposit_id}"]`);
    await row.getByRole('button').click();
    const fields = page.locator('#deposit-detail-fields');
    await waitForText(fields, /BELLO HALIMA, ••••6655, bank 011/);
    expect(await fields.textContent()).not.toContain('9988776655');
    expect(browser.pageErrors).toEqual([]);
  }, 60_000);
});
