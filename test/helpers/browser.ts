import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { withTool } from './tools.js';

/**
 * A real browser for the tests of the sandbox's page: Debian's `chromium` (test/helpers/tools.json,
 * so a machine without it FAILS these tests, and CI installs it), driven by playwright-core, which
 * downloads no browser of its own. Each launch has a fresh profile folder (playwright makes one in
 * the run's temporary folder and removes it on close), and reaches no network:
 * every host name but those a test maps to loopback fails to resolve, so a bot's attachment URL on
 * another site costs nothing and leaks nothing.
 */

export const chromiumPath = '/usr/bin/chromium';

/** The describe block of tests that need the browser: run when chromium is there, else failed. */
export const browserTests = withTool('chromium');

/** A host name the browser resolves to 127.0.0.1: a site the test plays, reaching the sandbox by another name. */
export const rebindingHost = 'rebinding.test';

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
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
      `--host-resolver-rules=MAP ${rebindingHost} 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1`,
    ],
  });
}

export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** Errors the page threw, console errors and warnings (resource load failures left out), and dialogs it opened. */
  problems: string[];
  dialogs: string[];
}

/**
 * A page in a context of its own (no state shared between tests), recording what would show that
 * something ran or broke: uncaught errors, console errors (a Content-Security-Policy or Trusted Types
 * violation is one), and dialogs (alert, confirm, prompt), which it dismisses.
 */
export async function watchedPage(browser: Browser, options: { acceptDownloads?: boolean } = {}): Promise<WatchedPage> {
  const context = await browser.newContext({ acceptDownloads: options.acceptDownloads ?? false, viewport: { width: 1280, height: 860 } });
  // A wait that fails names what it waited for, well before the test's own time limit; the bound asserts nothing about speed.
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const problems: string[] = [];
  const dialogs: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error' && message.type() !== 'warning') return;
    // An image of the bot's that cannot be loaded (no network here) is not the page's problem.
    if (/Failed to load resource|ERR_NAME_NOT_RESOLVED/.test(message.text())) return;
    problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { context, page, problems, dialogs };
}

/**
 * Waits until what the page shows passes the assertion that follows, as the page draws it from the
 * event stream: `await eventually(() => page.textContent('#owner')).toContain('agents')`. The bound
 * only keeps a broken page from hanging the test; it asserts nothing about speed.
 */
export function eventually<T>(read: () => T | Promise<T>) {
  return expect.poll(read, { timeout: 10_000, interval: 50 });
}
