// Headless Chromium for browser tests: Debian's `chromium` package (CI installs it in .ci/run)
// driven by playwright-core, which ships no browser of its own (never `npx playwright install`:
// only the npm registry and Debian's packages are reachable).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Where browser tests leave screenshots (`test-artifacts/` is ignored by git). */
export function artifactsDir(name: string): string {
  const dir = join(__dirname, '..', '..', 'test-artifacts', name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Uncaught page errors and console errors, for assertions and failure messages. */
  pageErrors: string[];
  consoleErrors: string[];
  /** Every URL the page requested (HTTP and websocket). */
  requests: string[];
  close(): Promise<void>;
}

/** A fresh headless Chromium with its own throw-away profile. */
export async function launchBrowser(
  options: {
    viewport?: { width: number; height: number };
    /** More Chromium switches (e.g. `--host-resolver-rules` for pages of other sites). */
    args?: string[];
    /** Accept the test pages' self-signed certificate. */
    ignoreHTTPSErrors?: boolean;
  } = {},
): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does this)`);
  }
  const userDataDir = mkdtempSync(join(tmpdir(), 'onramp-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        ...(options.args ?? []),
      ],
      ignoreHTTPSErrors: options.ignoreHTTPSErrors ?? false,
      viewport: options.viewport ?? { width: 1280, height: 900 },
      timeout: 30_000,
    });
  } catch (error) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw error;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  const pageErrors: string[] = [];
  const consoleErrors: string[] = [];
  const requests: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  context.on('request', (req) => requests.push(req.url()));
  page.on('websocket', (ws) => requests.push(ws.url()));
  return {
    context,
    page,
    pageErrors,
    consoleErrors,
    requests,
    close: async () => {
      await context.close().catch(() => undefined);
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** The element's text (an input's value), whitespace-trimmed; '' when it is not there. */
export async function textOf(locator: Locator): Promise<string> {
  if ((await locator.count()) === 0) return '';
  const text = await locator.first().evaluate(
    // Runs in the page: `value` for form controls, text content otherwise.
    (el: { value?: unknown; textContent: string | null }) =>
      typeof el.value === 'string' ? el.value : (el.textContent ?? ''),
  );
  return text.trim();
}

/**
 * Waits until the locator's text satisfies `expected` (a regular expression, an exact string,
 * or a predicate); returns the text. The failure names the last text seen.
 */
export async function waitForText(
  locator: Locator,
  expected: RegExp | string | ((text: string) => boolean),
  timeoutMs = 15_000,
): Promise<string> {
  const matches =
    typeof expected === 'string'
      ? (t: string) => t === expected
      : expected instanceof RegExp
        ? (t: string) => expected.test(t)
        : expected;
  const deadline = performance.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      last = await textOf(locator);
      if (matches(last)) return last;
    } catch {
      // detached mid-read: try again
    }
    if (performance.now() > deadline) {
      throw new Error(
        `${String(locator)}: text ${JSON.stringify(last)} did not become ${String(expected)} ` +
          `within ${timeoutMs} ms`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
