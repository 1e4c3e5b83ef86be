import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { browserTests, eventually, launchBrowser, watchedPage } from '../helpers/browser.js';
import { call, customerSays, replyBody, startConversation } from '../sandbox/helpers.js';
import { addressed, pageSandbox, type Script } from './bot.js';

/**
 * The page is exactly the window's height whatever it holds: the header, the strip of refusals and
 * the two panes fill the window, and only the panes (the conversation list, the timeline) scroll. A
 * page that grows with its conversations scrolls its own header away, and focusing the message box
 * then scrolls the window.
 */

/** The browser's globals, as far as these tests use them (the project's types have no DOM). */
interface PageGlobals {
  innerHeight: number;
  scrollY: number;
  document: {
    documentElement: { scrollHeight: number };
    body: { scrollHeight: number };
    activeElement: { id: string } | null;
    getElementById(id: string): { getBoundingClientRect(): { top: number; bottom: number; height: number } } | null;
  };
}

const answerAll: Script = (message) => [{ ...addressed(message), answerId: `a-${message.questionId}`, text: `You said: ${message.text}` }];

/** What decides whether the window scrolls: the document's height, the window's, and how far it has scrolled. */
function heights(page: Page) {
  return page.evaluate(() => {
    const g = globalThis as unknown as PageGlobals;
    return {
      document: g.document.documentElement.scrollHeight,
      body: g.document.body.scrollHeight,
      window: g.innerHeight,
      scrollY: g.scrollY,
    };
  });
}

/** The top and bottom of an element, in the window's coordinates. */
function box(page: Page, id: string) {
  return page.evaluate((which) => {
    const rect = (globalThis as unknown as PageGlobals).document.getElementById(which)!.getBoundingClientRect();
    return { top: rect.top, bottom: rect.bottom, height: rect.height };
  }, id);
}

browserTests.describe('the page, exactly as tall as the window', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  for (const conversations of [0, 10, 500]) {
    browserTests.it(
      `is the window’s height with ${conversations} conversations, and focusing the message box scrolls the window by 0`,
      async () => {
        const { sandbox } = await pageSandbox(answerAll);
        let last: string | undefined;
        for (let i = 0; i < conversations; i += 1) last = (await startConversation(sandbox)).sessionId;
        // The open conversation holds a long exchange, so its timeline has more than a window to scroll.
        if (last !== undefined) for (let i = 0; i < 15; i += 1) await customerSays(sandbox, last, `message ${i}`);

        const { page, problems } = await watchedPage(browser);
        await page.goto(`${sandbox.url}/`);
        await page.waitForSelector('body[data-ready="true"]');
        await eventually(() => page.locator('#conversation-list li[data-session]').count()).toBe(conversations);
        if (last !== undefined) await eventually(() => page.locator('.bubble.bot').count()).toBe(15);

        const before = await heights(page);
        expect(before.document).toBe(before.window);
        expect(before.body).toBe(before.window);
        expect(before.scrollY).toBe(0);
        // The composer is inside the window, all of it.
        const composer = await box(page, 'composer');
        expect(composer.bottom).toBeLessThanOrEqual(before.window);

        if (last !== undefined) {
          await page.focus('#message');
          expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.id)).toBe('message');
          expect((await heights(page)).scrollY).toBe(0);
          // The wheel over the list scrolls the list, not the window.
          await page.mouse.move(150, before.window - 100);
          await page.mouse.wheel(0, 4000);
          expect((await heights(page)).scrollY).toBe(0);
        }
        expect(problems).toEqual([]);
      },
    );
  }

  browserTests.it(
    'keeps the composer in the window under a strip of refusals, which collapses to one line and stays collapsed on reload',
    async () => {
      const { sandbox } = await pageSandbox(answerAll);
      const { sessionId } = await startConversation(sandbox);
      await customerSays(sandbox, sessionId, 'hello');
      // Its webhook answered first: a refusal made while a delivery is in flight is that exchange's.
      await eventually(async () => {
        const listed = await fetch(`${sandbox.url}/_sandbox/conversations/${encodeURIComponent(sessionId)}`);
        return /"outcome": ?"delivered"/.test(await listed.text());
      }).toBe(true);
      // Thirty refusals tied to no conversation: an unknown questionId each.
      for (let i = 0; i < 30; i += 1) {
        const refused = await call(sandbox, '/api/v1/chatbot', {
          body: replyBody({ coreClientId: undefined, questionId: 9000n + BigInt(i) }),
        });
        expect(refused.status).toBe(404);
      }

      const { page, problems } = await watchedPage(browser);
      await page.goto(`${sandbox.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      await eventually(() => page.locator('#refusal-list li').count()).toBe(30);
      await page.locator('.bubble.bot', { hasText: 'You said: hello' }).waitFor();

      const open = await heights(page);
      expect(open.document).toBe(open.window);
      const strip = await box(page, 'refusals');
      const composer = await box(page, 'composer');
      expect(composer.top).toBeGreaterThanOrEqual(strip.bottom);
      expect(composer.bottom).toBeLessThanOrEqual(open.window);

      // Collapsed: one line, saying how many, and the panes take the space it gave back.
      const toggle = page.locator('#refusals-toggle');
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      const timelineOpen = await box(page, 'timeline');
      await toggle.click();
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      expect(await page.isHidden('#refusal-list')).toBe(true);
      const collapsed = await box(page, 'refusals');
      const line = await page
        .locator('#refusals-heading')
        .evaluate((element) => (element as unknown as { offsetHeight: number }).offsetHeight);
      expect(collapsed.height).toBeLessThan(line * 2);
      expect(await page.textContent('#refusals-heading')).toBe('30 API requests the sandbox refused and could tie to no conversation');
      const timelineCollapsed = await box(page, 'timeline');
      expect(timelineCollapsed.height).toBeGreaterThan(timelineOpen.height);
      expect((await heights(page)).document).toBe(open.window);

      // The choice is remembered.
      await page.reload();
      await page.waitForSelector('body[data-ready="true"]');
      await eventually(() => page.textContent('#refusals-heading')).toBe(
        '30 API requests the sandbox refused and could tie to no conversation',
      );
      expect(await page.locator('#refusals-toggle').getAttribute('aria-expanded')).toBe('false');
      expect(await page.isHidden('#refusal-list')).toBe(true);

      // And undone the same way.
      await page.click('#refusals-toggle');
      expect(await page.isVisible('#refusal-list')).toBe(true);
      await page.reload();
      await page.waitForSelector('body[data-ready="true"]');
      await eventually(() => page.locator('#refusal-list li').count()).toBe(30);
      expect(await page.locator('#refusals-toggle').getAttribute('aria-expanded')).toBe('true');
      expect(problems).toEqual([]);
    },
  );
});
