// The rendered reference (/docs, Swagger UI) and GraphiQL (/graphiql) in headless Chromium
// against the real processes: each renders, nothing the page loads or opens leaves the
// gateway's origin, the pages' CSP refuses nothing they need, GraphiQL introspects the sandbox
// schema with the key pasted into its Headers editor, runs a query and shows a subscription
// event arriving over graphql-ws; production serves neither page unless turned on.
import { join } from 'node:path';
import type { Page, WebSocket } from 'playwright-core';
import { createTestDatabase } from '../support/db';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';
import { request } from '../support/http';
import { createBalanceOnramp, sandboxTransfer } from '../support/onramps';
import { artifactsDir, launchBrowser, waitForText, type Browser } from '../support/browser';
import { productionProviders } from '../support/production-providers';

const SHOTS = artifactsDir('reference');

/** Collects the page's CSP violations (directive and blocked URL) in `window.cspViolations`. */
const RECORD_CSP_VIOLATIONS = `
  window.cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) =>
    window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sourceFile + ' ' + e.sample));
`;
const cspViolations = (page: Page) => page.evaluate<string[]>('window.cspViolations');

/** Requests (HTTP and websocket) whose origin is not the gateway's; data: URLs stay inside. */
function foreignRequests(requests: string[], gateway: string): string[] {
  const origin = new URL(gateway);
  return requests.filter((url) => {
    if (url.startsWith('data:')) return false;
    const parsed = new URL(url);
    return parsed.host !== origin.host || !['http:', 'ws:'].includes(parsed.protocol);
  });
}

/** Replaces the text of GraphiQL's CodeMirror 5 editor inside `selector` (as typing would). */
async function setEditor(page: Page, selector: string, text: string): Promise<void> {
  await page
    .locator(`${selector} .CodeMirror`)
    .first()
    .evaluate((el, value) => {
      (el as unknown as { CodeMirror: { setValue(v: string): void } }).CodeMirror.setValue(value);
    }, text);
}

/**
 * Runs the editor's operation once GraphiQL has read it: its tab is named after the operation
 * (the editor is parsed a moment after it changes; run before that, the previous name is sent).
 */
async function run(page: Page, operationName: string): Promise<void> {
  await waitForText(page.locator('.graphiql-tab-active').first(), operationName);
  await page.locator('.graphiql-execute-button').click();
}

describe('/docs and /graphiql in a browser', () => {
  let stack: Stack;
  let merchant: { merchant_id: string; api_key: string };
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    [stack, merchant, browser] = await Promise.all([
      startStack(databaseUrl, { env: { RATE_LIMIT_PER_MINUTE: '100000' } }),
      createMerchant(databaseUrl, 'Reference Merchant'),
      launchBrowser(),
    ]);
    page = browser.page;
    page.setDefaultTimeout(20_000);
    await page.addInitScript(RECORD_CSP_VIOLATIONS);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([browser?.close(), stack?.stop()]);
  });

  afterEach(() => {
    if (browser?.pageErrors.length) console.warn('page errors:', browser.pageErrors);
  });

  it('/docs renders the OpenAPI document with Swagger UI, all from the gateway', async () => {
    const response = await page.goto(`${stack.url}/docs`);
    expect(response?.status()).toBe(200);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");

    // The document's title, and an operation (its method and path) from /v1/openapi.json.
    await waitForText(page.locator('.info .title').first(), /NGN onramp API/);
    const createOnramp = page
      .locator('.opblock-post')
      .filter({ has: page.locator('.opblock-summary-path', { hasText: /^\/v1\/onramp$/ }) })
      .first();
    await createOnramp.waitFor({ state: 'visible' });
    // Its title (the operation's summary) is shown beside it.
    await waitForText(createOnramp.locator('.opblock-summary-description').first(), /\S/);
    // Opening it renders its parameters and responses.
    await createOnramp.locator('.opblock-summary').first().click();
    await createOnramp.locator('.responses-wrapper').waitFor({ state: 'visible' });
    await page.screenshot({ path: join(SHOTS, 'docs.png'), fullPage: false });

    expect(browser.requests).toContain(`${stack.url}/v1/openapi.json`);
    expect(foreignRequests(browser.requests, stack.url)).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  });

  it('/graphiql introspects with the pasted key, runs a query and receives a subscription event', async () => {
    browser.requests.length = 0;
    const response = await page.goto(`${stack.url}/graphiql`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("connect-src 'self' ws: wss:");
    await page.locator('.graphiql-container').waitFor({ state: 'visible' });
    const result = page.locator('.graphiql-response .result-window').first();
    // Without a key the page says where to paste it, and asks the gateway nothing.
    await waitForText(result, /Paste your secret key in the Headers tab/);
    expect(browser.requests.filter((url) => url.endsWith('/graphql'))).toEqual([]);
    // GraphiQL's dialogs and menus (Radix) add a <style> element, which the page's CSP allows
    // only with the response's nonce. The settings dialog opens the same way every time (Run's
    // operation menu appears only when the editor's cursor is in no operation).
    await page.getByRole('button', { name: 'Open settings dialog' }).click();
    await page.getByRole('dialog').waitFor({ state: 'visible' });
    expect(await page.locator('style[nonce]').count()).toBeGreaterThan(0);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });

    // The key pasted into the Headers editor: GraphiQL's own introspection query answers.
    const introspection = page.waitForResponse(
      (r) =>
        r.url() === `${stack.url}/graphql` &&
        (r.request().postData() ?? '').includes('IntrospectionQuery') &&
        r.status() === 200,
    );
    await setEditor(
      page,
      '.graphiql-editor-tool .graphiql-editor:not(.hidden)',
      JSON.stringify({ Authorization: `Bearer ${merchant.api_key}` }),
    );
    const schema = (await (await introspection).json()) as {
      data?: { __schema?: { subscriptionType?: { name: string } } };
      errors?: unknown;
    };
    expect(schema.errors).toBeUndefined();
    expect(schema.data?.__schema?.subscriptionType?.name).toBe('Subscription');

    // A query over HTTP POST /graphql with that key.
    await setEditor(page, '.graphiql-query-editor', 'query Me { merchant { id name } }');
    await run(page, 'Me');
    await waitForText(result, (text) => text.includes(merchant.merchant_id));
    expect(await result.textContent()).toContain('Reference Merchant');

    // A subscription over graphql-ws (the key in its connection params), then a deposit.
    const onramp = await createBalanceOnramp(stack.url, merchant.api_key);
    // Every frame of the page's graphql-ws sockets, recorded from the moment each opens.
    const frames: string[] = [];
    page.on('websocket', (ws: WebSocket) => {
      ws.on('framesent', (frame) => frames.push(`sent ${String(frame.payload)}`));
      ws.on('framereceived', (frame) => frames.push(`received ${String(frame.payload)}`));
    });
    await setEditor(
      page,
      '.graphiql-query-editor',
      `subscription Watch { depositUpdated(onrampId: "${onramp.onramp_id}") { id status onrampId } }`,
    );
    await run(page, 'Watch');
    // graphql-ws sends the subscription only once the server accepted the key (connection_ack).
    await eventually(async () =>
      frames.some((f) => f.startsWith('sent') && f.includes('"subscribe"')) ? true : undefined,
    );
    expect(frames.some((f) => f.startsWith('received') && f.includes('connection_ack'))).toBe(true);
    await sandboxTransfer(
      stack.url,
      merchant.api_key,
      onramp.virtual_account.account_number,
      '50000.00',
    );
    // The deposit moves on (PENDING_FX, then SETTLED): any of its events shows in the pane.
    await waitForText(result, (text) => text.includes(onramp.onramp_id) && /"status"/.test(text));
    expect(frames.some((f) => f.startsWith('received') && f.includes('"next"'))).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'graphiql.png'), fullPage: false });

    const wsUrl = stack.url.replace(/^http/, 'ws');
    expect(browser.requests).toContain(`${wsUrl}/graphql`);
    expect(foreignRequests(browser.requests, stack.url)).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  });
});

describe('/docs and /graphiql switched by configuration', () => {
  let databaseUrl: string;
  let providers: Awaited<ReturnType<typeof productionProviders>>;
  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    providers = await productionProviders();
  });
  afterAll(() => providers?.stop());

  /** A gateway (production unless `env` says otherwise): what /docs, /graphiql and assets answer. */
  async function statuses(env: Record<string, string>) {
    const stack = await startStack(databaseUrl, {
      env: { ONRAMP_ENV: 'production', ...providers.env, ...env },
      runners: 0,
    });
    try {
      const paths = ['/docs', '/docs/assets/docs.js', '/graphiql', '/graphiql/assets/graphiql.js'];
      const answers = await Promise.all(paths.map((path) => request(stack.url, 'GET', path)));
      return Object.fromEntries(paths.map((path, i) => [path, answers[i]]));
    } finally {
      await stack.stop();
    }
  }

  it('serves neither by default; DOCS_ENABLED and GRAPHIQL_ENABLED turn each on', async () => {
    const docsOnly = await statuses({ DOCS_ENABLED: 'true' });
    expect(docsOnly['/docs'].status).toBe(200);
    expect(docsOnly['/docs'].headers.get('content-security-policy')).toContain(
      "default-src 'none'",
    );
    expect(docsOnly['/docs/assets/docs.js'].status).toBe(200);
    expect(docsOnly['/graphiql'].status).toBe(404);
    expect(docsOnly['/graphiql'].body).toEqual({
      error: { code: 'not_found', message: 'No route GET /graphiql' },
    });
    expect(docsOnly['/graphiql/assets/graphiql.js'].status).toBe(404);

    const graphiqlOnly = await statuses({ GRAPHIQL_ENABLED: 'true' });
    expect(graphiqlOnly['/graphiql'].status).toBe(200);
    expect(graphiqlOnly['/graphiql/assets/graphiql.js'].status).toBe(200);
    expect(graphiqlOnly['/docs'].status).toBe(404);
    expect(graphiqlOnly['/docs'].body.error.code).toBe('not_found');
    expect(graphiqlOnly['/docs/assets/docs.js'].status).toBe(404);
  }, 60_000);

  it('a sandbox operator can turn both off', async () => {
    const off = await statuses({
      ONRAMP_ENV: 'sandbox',
      DOCS_ENABLED: 'false',
      GRAPHIQL_ENABLED: 'false',
    });
    for (const [path, answer] of Object.entries(off)) {
      expect({ path, status: answer.status, code: answer.body?.error?.code }).toEqual({
        path,
        status: 404,
        code: 'not_found',
      });
    }
  }, 60_000);
});
