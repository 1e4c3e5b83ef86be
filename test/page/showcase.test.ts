import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { browserTests, eventually, launchBrowser, watchedPage } from '../helpers/browser.js';
import { repoRoot } from '../helpers/run.js';
import { pageSandbox } from './bot.js';
import { showcaseScript, showcaseSteps } from './showcase.js';

/**
 * The page in a real browser, playing the customer of a bot through a whole rich conversation on an
 * IM thread (test/page/showcase.ts): everything is drawn live from the event stream as it happens.
 * With CORE_PAGE_SCREENSHOT=FILE it also writes the screenshot shown in the README
 * (`npm run screenshot` writes docs/sandbox-page.png).
 */

const screenshot = process.env.CORE_PAGE_SCREENSHOT;

browserTests.describe('the page, playing the customer of a bot', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  browserTests.it(
    'draws a rich IM conversation live: Markdown, an image, header and footer, buttons, a list, retries, a duplicate, a hand-over',
    async () => {
      const { sandbox, imageUrl } = await pageSandbox(showcaseScript);
      const { page, problems, dialogs, context } = await watchedPage(browser);
      // Every request the page makes goes to the sandbox, but the bot's image, which the bot serves on loopback.
      const requested: string[] = [];
      page.on('request', (request) => requested.push(request.url()));
      await page.goto(`${sandbox.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      await eventually(() => page.textContent('#bot-status')).toContain(`Bot: a MESSAGE webhook to POST ${sandbox.botUrl}`);

      // Start an IM conversation and write.
      await page.selectOption('#channel', 'IM');
      await page.click('#start');
      await page.waitForSelector('.system-conversation-started');
      expect(await page.textContent('.conversation-facts')).toContain('instant messenger');
      await page.fill('#message', showcaseSteps.first);
      await page.keyboard.press('Enter');

      // The answer, after a webhook retry: Markdown, the image, the header and footer, the buttons.
      const first = page.locator('.bubble.bot').first();
      await first.locator('.markdown strong', { hasText: 'Your order 4211 has shipped.' }).waitFor();
      expect(await first.locator('.markdown li').allTextContents()).toEqual(['carrier: Parcelways', 'weight: 1.2 kg']);
      const link = first.locator('.markdown a');
      expect(await link.getAttribute('href')).toBe('https://example.com/track/4211');
      expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
      expect(await link.getAttribute('target')).toBe('_blank');
      await eventually(() =>
        first.locator('img.attachment-preview').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
      ).toBe(240);
      expect(await first.locator('.im-header-text').textContent()).toBe('Order 4211');
      expect(await first.locator('.im-footer').textContent()).toBe('Replies within 5 minutes');
      expect(await first.locator('.not-shown').count()).toBe(0);
      expect(await first.locator('.quick-reply').allTextContents()).toEqual([showcaseSteps.press, 'contactShare my phone number']);
      const exchange = page.locator('details.exchange').first();
      await eventually(() => exchange.locator('summary').textContent()).toMatch(/^Webhook: delivered, 200 in \d+ ms · 1 bot request$/);
      await exchange.locator('summary').click();
      expect(await exchange.locator('tbody tr td:nth-child(2)').allTextContents()).toEqual(['503', '200']);
      expect(await exchange.locator('tbody tr td:nth-child(4)').allTextContents()).toEqual(['retrying in 0 ms', 'delivered']);
      expect(await exchange.locator('pre.body').allTextContents()).toEqual([
        'busy, try again',
        expect.stringMatching(/^answered question 5001$/),
      ]);
      expect(await exchange.locator('.requests li').allTextContents()).toEqual([
        expect.stringMatching(/^POST \/api\/v1\/chatbot → 200 · delivered · answerId showcase-5001-a · by questionId$/),
      ]);

      // Press a button: the list picker comes, and the first message's buttons are spent.
      await page.click(`[data-press="${showcaseSteps.press}"]`);
      await page.locator('.bubble.customer .chosen', { hasText: `pressed “${showcaseSteps.press}”` }).waitFor();
      const list = page.locator('.bubble.bot .list-picker');
      await list.waitFor();
      expect(await first.locator('.quick-reply').first().isDisabled()).toBe(true);
      expect(await list.locator('.list-header').textContent()).toBe('Delivery slots');
      expect(await list.locator('.list-footer').textContent()).toBe('Times are local');
      await list.locator('.list-open', { hasText: 'Pick a slot' }).click();
      expect(await list.locator('.list-section-title').allTextContents()).toEqual(['Tomorrow', 'Later']);
      expect(await list.locator('.list-item-subtitle').allTextContents()).toEqual(['8:00 to 12:00', '12:00 to 18:00', 'all day']);

      // Pick an item: booked once; the repeated answerId is shown, not delivered.
      await list.locator(`[data-pick="${showcaseSteps.pick}"]`).click();
      await page.locator('.bubble.customer .chosen', { hasText: 'picked “Afternoon” (tue-pm)' }).waitFor();
      await page.locator('.bubble.bot:not(.undelivered)', { hasText: 'Booked: tomorrow afternoon.' }).waitFor();
      await page.locator('.bubble.bot.undelivered .not-delivered', { hasText: 'Not delivered: duplicate answerId' }).waitFor();

      // Ask for a person: the hand-over with its targets, then an answer the thread no longer takes.
      await page.fill('#message', showcaseSteps.person);
      await page.click('#send');
      await page.locator('.system-handover', { hasText: 'Handed over to agents (SWITCH_TO_HUMAN) · users 7, 9 · skills 12' }).waitFor();
      await page.locator('.bubble.bot.undelivered .not-delivered', { hasText: 'Not delivered: thread with agents' }).waitFor();
      await page.locator('#owner', { hasText: /(With agents?\b.*|In the queue for an agent) since SWITCH_TO_HUMAN/ }).waitFor();
      expect(await page.isVisible('#release')).toBe(true);
      expect(await page.textContent('#composer-note')).toContain('The thread is with agents');

      expect(problems).toEqual([]);
      expect(dialogs).toEqual([]);
      expect(requested.filter((url) => !url.startsWith(`${sandbox.url}/`) && url !== imageUrl)).toEqual([]);
      if (screenshot) {
        // The whole conversation in one picture: the list open again, and a window as tall as the timeline.
        await list.locator('.list-open').click();
        const height = await page.evaluate<number>(
          "Math.ceil(innerHeight - document.getElementById('timeline').clientHeight + document.getElementById('timeline').scrollHeight)",
        );
        await page.setViewportSize({ width: 1280, height });
        await page.screenshot({ path: resolve(repoRoot, screenshot) });
      }
      await context.close();
    },
  );
});
