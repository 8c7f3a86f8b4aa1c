// The dashboard's live socket (graphql-ws's client, dashboard/src/ws-client.ts) in headless
// Chromium against the real gateway. Playwright's WebSocket routing sits between the page and
// the gateway only to cut the socket and to see its messages: a dropped socket comes back and
// subscribes again, a close graphql-ws itself gives up on (1011) is retried too, and an ended
// session's 4401 sends the page back to the sign-in form without reconnecting.
import type { Page, WebSocketRoute } from 'playwright-core';
import { launchBrowser, waitForText, type Browser } from '../support/browser';
import { createTestDatabase } from '../support/db';
import { request } from '../support/http';
import { createBalanceOnramp, sandboxTransfer } from '../support/onramps';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';

const COOKIE = 'onramp_session';

interface RoutedSocket {
  page: WebSocketRoute;
  server: WebSocketRoute;
  /** What the page sent (graphql-transport-ws messages, JSON). */
  sent: string[];
  /** The close code the gateway sent, if it closed the socket. */
  serverClose?: number;
}

describe('dashboard live socket in a browser', () => {
  let stack: Stack;
  let merchant: { merchant_id: string; api_key: string };
  let browser: Browser;
  let page: Page;
  let accountNumber: string;
  const sockets: RoutedSocket[] = [];

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    [stack, merchant, browser] = await Promise.all([
      startStack(databaseUrl, { env: { RATE_LIMIT_PER_MINUTE: '100000' } }),
      createMerchant(databaseUrl, 'Live Socket Co'),
      launchBrowser(),
    ]);
    page = browser.page;
    page.setDefaultTimeout(15_000);
    // Every socket of the page goes on to the gateway; the test keeps both ends of each.
    await page.routeWebSocket(/\/graphql$/, (ws) => {
      const server = ws.connectToServer();
      const socket: RoutedSocket = { page: ws, server, sent: [] };
      ws.onMessage((message) => {
        socket.sent.push(String(message));
        server.send(message);
      });
      server.onClose((code, reason) => {
        socket.serverClose = code;
        void ws.close({ code, reason });
      });
      sockets.push(socket);
    });
  }, 90_000);

  afterAll(async () => {
    await Promise.all([browser?.close(), stack?.stop()]);
  });

  const liveState = (state: string) => page.locator(`#live-state[data-state="${state}"]`);
  const depositRow = (depositId: string) =>
    page.locator(`#deposits-table tr[data-deposit-id="${depositId}"]`);
  const subscribesOn = (socket: RoutedSocket) =>
    socket.sent.filter((m) => /"type":"subscribe"/.test(m) && /DashboardDepositUpdated/.test(m));

  /** A deposit made now must reach the table through the subscription alone. */
  async function expectLiveDeposit(): Promise<void> {
    // The page refetches the list at connect and 1 s later; after that only the socket adds rows.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const deposit = (await sandboxTransfer(
      stack.url,
      merchant.api_key,
      accountNumber,
      '25000',
    )) as {
      deposit_id: string;
    };
    await depositRow(deposit.deposit_id).waitFor();
    await waitForText(depositRow(deposit.deposit_id).locator('.status'), 'SETTLED', 20_000);
  }

  /** Cuts the newest socket from the page's side with `code`; resolves on the next live one. */
  async function cutAndAwaitReconnect(code: number, reason: string): Promise<RoutedSocket> {
    const before = sockets.length;
    const cut = sockets[before - 1];
    await page.evaluate(`(() => {
      window.__states = [];
      const badge = document.getElementById('live-state');
      new MutationObserver(() => window.__states.push(badge.dataset.state))
        .observe(badge, { attributes: true, attributeFilter: ['data-state'] });
    })()`);
    await Promise.all([cut.page.close({ code, reason }), cut.server.close()]);
    const next = await eventually(async () => sockets[before], 15_000);
    await liveState('connected').waitFor();
    expect(await page.evaluate('window.__states')).toContain('reconnecting');
    expect(sockets.length).toBe(before + 1);
    await eventually(async () => subscribesOn(next).length === 1 || undefined, 10_000);
    return next;
  }

  it('signs in and goes live on one socket that subscribes to depositUpdated', async () => {
    accountNumber = (await createBalanceOnramp(stack.url, merchant.api_key)).virtual_account
      .account_number;
    await page.goto(`${stack.url}/dashboard`);
    await page.getByLabel('Secret API key', { exact: true }).fill(merchant.api_key);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await liveState('connected').waitFor();
    await waitForText(page.locator('#live-state'), 'Live');
    expect(sockets).toHaveLength(1);
    expect(subscribesOn(sockets[0])).toHaveLength(1);
    expect(JSON.parse(sockets[0].sent[0])).toEqual({
      type: 'connection_init',
      payload: { csrfToken: expect.any(String) },
    });
    await expectLiveDeposit();
  });

  it('reconnects after a dropped socket and subscribes again; new deposits arrive live', async () => {
    await cutAndAwaitReconnect(1001, 'Going away');
    await expectLiveDeposit();
  });

  it('retries after a close graphql-ws gives up on (1011) as well', async () => {
    await cutAndAwaitReconnect(1011, 'Service unavailable');
    await expectLiveDeposit();
  });

  it('on an ended session the gateway closes the socket with 4401 and the page signs out', async () => {
    // Let the refreshes a settled deposit schedules (2 s for the delivery log) finish first, so
    // the socket, not an HTTP 401, is what notices the session's end.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const live = sockets[sockets.length - 1];
    const cookie = (await browser.context.cookies(stack.url)).find((c) => c.name === COOKIE)!;
    const headers = { cookie: `${COOKIE}=${cookie.value}` };
    const session = await request<{ csrf_token: string }>(
      stack.url,
      'GET',
      '/dashboard/api/session',
      { headers },
    );
    expect(session.status).toBe(200);
    const ended = await request(stack.url, 'DELETE', '/dashboard/api/session', {
      headers: { ...headers, 'x-csrf-token': session.body.csrf_token },
    });
    expect(ended.status).toBeLessThan(300);

    await eventually(async () => live.serverClose, 15_000);
    expect(live.serverClose).toBe(4401);
    await waitForText(page.locator('#sign-in-alert'), 'Your session has ended. Sign in again.');
    await page.getByLabel('Secret API key', { exact: true }).waitFor();
    // Reconnecting with an ended session would not help: no socket is opened again.
    const count = sockets.length;
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(sockets.length).toBe(count);
    expect(browser.pageErrors).toEqual([]);
  });
});
