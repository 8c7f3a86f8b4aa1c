import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { launchBrowser, waitForText, type Browser } from '../support/browser';
import { createTestDatabase } from '../support/db';
import { request } from '../support/http';
import { createBalanceOnramp, type CreatedOnramp } from '../support/onramps';
import { createMerchant, startStack, type Stack } from '../support/stack';

const TLS = join(__dirname, '..', 'support', 'tls');

/** What the page's own fetch() saw: the answer it could read, or the error it got instead. */
type PageResult = { ok: true; status: number; body: unknown } | { ok: false; error: string };

/**
 * A merchant's frontend in real Chromium: pages served by a second server (other origins than
 * the gateway's) call `/graphql` with fetch() and an onramp's client secret. Chromium makes the
 * preflight and enforces the answer, so this is the browser's verdict, not a header check.
 * `shop.test` and `evil.test` resolve to this machine (Chromium's host resolver rules) and are
 * served over https with a self-signed certificate (test/support/tls), as allowed_origins
 * entries are https.
 */
describe('browsers: a page on another origin calls GraphQL with a client secret (Chromium)', () => {
  let stack: Stack;
  let key: string;
  let onramp: CreatedOnramp;
  let browser: Browser;
  let httpsPages: Server;
  let httpPages: Server;

  const listen = async (server: Server) => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  };
  const page = (_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Merchant checkout</title><p>checkout</p>');
  };
  let httpsPort: number;
  let httpPort: number;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    ({ api_key: key } = await createMerchant(databaseUrl, 'Chromium Shop'));
    onramp = await createBalanceOnramp(stack.url, key);
    httpsPages = createHttpsServer(
      {
        key: readFileSync(join(TLS, 'pages.key')),
        cert: readFileSync(join(TLS, 'pages.crt')),
      },
      page,
    );
    httpPages = createHttpServer(page);
    httpsPort = await listen(httpsPages);
    httpPort = await listen(httpPages);
    browser = await launchBrowser({
      args: ['--host-resolver-rules=MAP shop.test 127.0.0.1,MAP evil.test 127.0.0.1'],
      ignoreHTTPSErrors: true,
    });
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    for (const server of [httpsPages, httpPages]) {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    }
  });

  /** Opens `pageUrl` and runs the merchant frontend's GraphQL call from it. */
  async function callFrom(pageUrl: string, credential: string): Promise<PageResult> {
    await browser.page.goto(pageUrl);
    return browser.page.evaluate(
      async ({ gateway, credential, id }) => {
        try {
          const response = await fetch(`${gateway}/graphql`, {
            method: 'POST',
            headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              query: 'query($id: ID!) { onramp(id: $id) { id status } }',
              variables: { id },
            }),
          });
          return { ok: true as const, status: response.status, body: await response.json() };
        } catch (error) {
          return { ok: false as const, error: String(error) };
        }
      },
      { gateway: stack.url, credential, id: onramp.onramp_id },
    );
  }

  it('succeeds from an origin in allowed_origins and fails from another', async () => {
    const shop = `https://shop.test:${httpsPort}`;
    const evil = `https://evil.test:${httpsPort}`;
    const patched = await request(stack.url, 'PATCH', '/v1/merchant/settings', {
      key,
      body: { allowed_origins: [shop] },
    });
    expect(patched.status).toBe(200);

    const allowed = await callFrom(`${shop}/checkout`, onramp.client_secret);
    expect(allowed).toEqual({
      ok: true,
      status: 200,
      body: { data: { onramp: { id: onramp.onramp_id, status: 'ACTIVE' } } },
    });

    // Another site's page: the gateway answers 403 without Access-Control-Allow-Origin, so
    // the browser gives the page nothing to read.
    const refused = await callFrom(`${evil}/checkout`, onramp.client_secret);
    expect(refused).toEqual({ ok: false, error: expect.stringMatching(/Failed to fetch/) });

    // A secret key in a page fails even from the allowed origin (and is not revoked).
    const secretKey = await callFrom(`${shop}/checkout`, key);
    expect(secretKey).toEqual({ ok: false, error: expect.stringMatching(/Failed to fetch/) });
    const stillWorks = await request(stack.url, 'GET', '/v1/merchant/settings', { key });
    expect(stillWorks.status).toBe(200);

    // Taking the origin out of the list closes it on the next call.
    await request(stack.url, 'PATCH', '/v1/merchant/settings', {
      key,
      body: { allowed_origins: [] },
    });
    const removed = await callFrom(`${shop}/checkout`, onramp.client_secret);
    expect(removed).toEqual({ ok: false, error: expect.stringMatching(/Failed to fetch/) });
  });

  it("the dashboard's settings panel edits allowed_origins, and says which entry is refused", async () => {
    const { page } = browser;
    // The saved list arrives late, as on a loaded machine (CI once saw it replace what had
    // been typed, and the save send []): the form takes no input until it has loaded.
    const listQuery = (body: string | null) => !!body?.includes('query DashboardAllowedOrigins');
    await page.route('**/graphql', async (route) => {
      if (listQuery(route.request().postData())) {
        await new Promise((resolve) => setTimeout(resolve, 1_500));
      }
      await route.continue();
    });
    const loaded = page.waitForResponse((response) => listQuery(response.request().postData()));
    await page.goto(`${stack.url}/dashboard`);
    await page.getByLabel('Secret API key', { exact: true }).fill(key);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const panel = page.getByRole('region', { name: 'Allowed origins', exact: true });
    await panel.waitFor();
    const origins = panel.getByLabel('Origins', { exact: true });
    await origins.fill('https://shop.example.com\n\nhttps://app.example.com:8443\n');
    await loaded;
    await page.unroute('**/graphql');
    await panel.getByRole('button', { name: 'Save origins' }).click();
    await waitForText(panel.getByRole('status'), 'Allowed origins saved.');
    const saved = await request(stack.url, 'GET', '/v1/merchant/settings', { key });
    expect(saved.body.allowed_origins).toEqual([
      'https://shop.example.com',
      'https://app.example.com:8443',
    ]);
    await origins.fill('https://shop.example.com/checkout');
    await panel.getByRole('button', { name: 'Save origins' }).click();
    await waitForText(panel.getByRole('alert'), /allowed_origins\[0\]/);
    const unchanged = await request(stack.url, 'GET', '/v1/merchant/settings', { key });
    expect(unchanged.body.allowed_origins).toHaveLength(2);
    expect(browser.pageErrors).toEqual([]);
  });

  it('the sandbox allows http://localhost pages on any port; 127.0.0.1 is another origin', async () => {
    const local = await callFrom(`http://localhost:${httpPort}/`, onramp.client_secret);
    expect(local).toMatchObject({ ok: true, status: 200 });
    const loopback = await callFrom(`http://127.0.0.1:${httpPort}/`, onramp.client_secret);
    expect(loopback).toEqual({ ok: false, error: expect.stringMatching(/Failed to fetch/) });
  });
});
