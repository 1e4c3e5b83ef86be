import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { version } from '../../src/version.js';
import { browserTests, eventually, launchBrowser, watchedPage } from '../helpers/browser.js';
import { baseEnv, runInProcess } from '../helpers/run.js';
import { call, customerSays, replyBody, startConversation } from '../sandbox/helpers.js';
import { addressed, pageSandbox, type Script } from './bot.js';

/**
 * Nothing the bot does wrong is silent on the page: the refusals the sandbox could tie to no
 * conversation (a wrong token, an unknown questionId) in a strip at the top, newest first, with
 * their count, whether they came before the page was opened or after; a conversation with a refused
 * request marked in the list; its exchange red while collapsed.
 */

/** The browser's window, as far as this test uses it (the project's types have no DOM). */
interface Window {
  getComputedStyle(element: unknown): { color: string };
}

// The bot breaks a rule when asked to: a quick reply of 4,001 characters is refused with 400.
const script: Script = (message) => [
  {
    ...addressed(message),
    answerId: `a-${message.questionId}`,
    text: 'Pick one.',
    ...(message.text === 'long button' ? { quickReplies: [{ type: 'TEXT', text: 'x'.repeat(4001) }] } : {}),
    // Answered inside the webhook handler, naming a question the sandbox does not have.
    ...(message.text === 'unknown id' ? { questionId: 99n } : {}),
  },
];

browserTests.describe("the page, showing the bot's refused requests", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  browserTests.it(
    'lists untied refusals in a strip, newest first, badges a conversation with a refusal and draws its exchange red while collapsed',
    async () => {
      const { sandbox } = await pageSandbox(script);
      const wrongToken = (questionId: bigint) =>
        call(sandbox, '/api/v1/chatbot', { token: 'not-the-token', body: replyBody({ coreClientId: undefined, questionId }) });

      // Before the page is opened: no strip yet to show, so the page must find it in what was kept.
      expect((await wrongToken(1n)).status).toBe(401);
      const { page, problems } = await watchedPage(browser);
      await page.goto(`${sandbox.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      const strip = page.locator('#refusals');
      await strip.waitFor();
      expect(await page.textContent('#refusals-heading')).toBe('1 API request the sandbox refused and could tie to no conversation');
      expect(await page.locator('#refusal-list li').allTextContents()).toEqual([
        expect.stringMatching(/^401 POST \/api\/v1\/chatbot · .+ · \d\d:\d\d:\d\d\.\d{3}$/),
      ]);

      // A refusal tied to the conversation: the badge in the list, and the exchange red while collapsed.
      const { sessionId } = await startConversation(sandbox);
      await customerSays(sandbox, sessionId, 'long button');
      const badge = page.locator(`#conversation-list li[data-session="${sessionId}"] .badge.refused`);
      await badge.waitFor();
      expect(await badge.textContent()).toBe('\u2717 1 refused');
      const exchange = page.locator('details.exchange').first();
      await eventually(() => exchange.getAttribute('class')).toBe('exchange has-refusal');
      expect(await exchange.evaluate((element) => (element as { open: boolean }).open)).toBe(false);
      const summary = exchange.locator('summary');
      expect(await summary.textContent()).toMatch(/^\u2717 1 request refused · Webhook: delivered/);
      const [red, grey] = await Promise.all([
        summary.evaluate((element) => (globalThis as unknown as Window).getComputedStyle(element).color),
        page
          .locator('#conversation-list .conversation-meta')
          .first()
          .evaluate((element) => (globalThis as unknown as Window).getComputedStyle(element).color),
      ]);
      expect(red).toBe('rgb(138, 28, 28)');
      expect(red).not.toBe(grey);

      // A later untied refusal comes in live, on top.
      expect((await wrongToken(2n)).status).toBe(401);
      await eventually(() => page.textContent('#refusals-heading')).toBe(
        '2 API requests the sandbox refused and could tie to no conversation',
      );
      const seqs = await page
        .locator('#refusal-list li')
        .evaluateAll((items) => items.map((item) => Number((item as { dataset: { seq: string } }).dataset.seq)));
      expect(seqs).toHaveLength(2);
      expect(seqs[0]! > seqs[1]!).toBe(true);

      // Opened again, the page finds all of it in the kept events.
      await page.reload();
      await page.waitForSelector('body[data-ready="true"]');
      await eventually(() => page.textContent('#refusals-heading')).toBe(
        '2 API requests the sandbox refused and could tie to no conversation',
      );
      await badge.waitFor();
      expect(await badge.textContent()).toBe('\u2717 1 refused');
      expect(problems).toEqual([]);
    },
  );

  browserTests.it(
    'names who sent an untied refusal where the sandbox can tell: core’s own commands as such, others by their User-Agent',
    async () => {
      const { sandbox } = await pageSandbox(script);
      // `core reply` typed in a shell, to a question the sandbox does not have: a 404 tied to nothing.
      const replied = await runInProcess(['reply', '--question-id', '777', '-t', 'Hi', '--json'], {
        env: baseEnv({ CORE_BASE_URL: sandbox.url, CORE_TENANT: 'sandbox', CORE_TOKEN: 'sandbox-token' }),
      });
      expect(replied.code).toBe(4);
      // A client that names itself, with the wrong tenant: sandbox-wide.
      const other = await call(sandbox, '/api/v1/chatbot', {
        tenant: 'nobody',
        headers: { 'User-Agent': 'python-requests/2.32.3' },
        body: replyBody({ coreClientId: undefined, questionId: 1n }),
      });
      expect(other.status).toBeGreaterThanOrEqual(400);
      // One that names nothing.
      const unnamed = await call(sandbox, '/api/v1/chatbot', {
        headers: { 'User-Agent': '' },
        body: replyBody({ coreClientId: undefined, questionId: 2n }),
      });
      expect(unnamed.status).toBe(404);

      const { page, problems } = await watchedPage(browser);
      await page.goto(`${sandbox.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      await eventually(() => page.locator('#refusal-list li').count()).toBe(3);
      const [none, python, core] = await page.locator('#refusal-list li').allTextContents();
      expect(core).toMatch(
        new RegExp(
          `^404 POST /api/v1/chatbot · .+ · sent by core ${version().replaceAll('.', '\\.')} \\(a core command, such as core reply\\) · \\d`,
        ),
      );
      expect(python).toMatch(/ · sent by python-requests\/2\.32\.3 · \d/);
      expect(none).not.toContain('sent by');
      expect(problems).toEqual([]);
    },
  );

  browserTests.it('shows no strip and no badge while the bot makes no mistake', async () => {
    const { sandbox } = await pageSandbox(script);
    const { page, problems } = await watchedPage(browser);
    await page.goto(`${sandbox.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    const { sessionId } = await startConversation(sandbox);
    await customerSays(sandbox, sessionId, 'hello');
    await page.locator('.bubble.bot', { hasText: 'Pick one.' }).waitFor();
    await eventually(() => page.locator('details.exchange summary').first().textContent()).toMatch(/^Webhook: delivered/);
    expect(await page.isHidden('#refusals')).toBe(true);
    expect(await page.locator('.badge.refused').count()).toBe(0);
    expect(await page.locator('details.exchange').first().getAttribute('class')).toBe('exchange');
    expect(problems).toEqual([]);
  });

  browserTests.it(
    'shows a refusal that named no conversation but came during the only delivery in flight in that exchange, and links the strip to conversations',
    async () => {
      const { sandbox } = await pageSandbox(script);
      const { page, problems } = await watchedPage(browser);
      await page.goto(`${sandbox.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      const { sessionId } = await startConversation(sandbox);
      await customerSays(sandbox, sessionId, 'unknown id');
      const badge = page.locator(`#conversation-list li[data-session="${sessionId}"] .badge.refused`);
      await badge.waitFor();
      expect(await badge.textContent()).toBe('\u2717 1 refused');
      const exchange = page.locator('details.exchange').first();
      await eventually(() => exchange.getAttribute('class')).toBe('exchange has-refusal');
      await eventually(() => exchange.locator('.requests li').first().textContent()).toMatch(
        /^POST \/api\/v1\/chatbot \u2192 404 · not delivered: unknown question · .* · refused during this delivery$/,
      );
      expect(await page.locator('#refusals').isHidden()).toBe(true);

      // Nothing in flight: the refusal is the strip's, linked to the latest conversation before it.
      const untied = await call(sandbox, '/api/v1/chatbot', {
        token: 'not-the-token',
        body: replyBody({ coreClientId: undefined, questionId: 99n }),
      });
      expect(untied.status).toBe(401);
      const link = page.locator(`#refusal-list li .refusal-candidates a[data-session="${sessionId}"]`);
      await link.waitFor();
      expect(await page.locator('#refusal-list li .refusal-candidates').textContent()).toBe(` \u00b7 may belong to ${sessionId}`);
      // The link opens the conversation, from another one.
      const other = await startConversation(sandbox);
      await page.locator(`#conversation-list a[data-session="${other.sessionId}"]`).click();
      await eventually(() => page.locator('#conversation-list [aria-current="page"]').getAttribute('data-session')).toBe(other.sessionId);
      await link.click();
      await eventually(() => page.locator('#conversation-list [aria-current="page"]').getAttribute('data-session')).toBe(sessionId);
      expect(problems).toEqual([]);
    },
  );
});
