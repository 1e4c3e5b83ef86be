import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { parseJson } from '../../src/payload/json.js';
import { browserTests, eventually, launchBrowser, watchedPage } from '../helpers/browser.js';
import { customerSays, startConversation, updateReason } from '../sandbox/helpers.js';
import { addressed, pageSandbox, type Script } from './bot.js';

/**
 * The page in a real browser, following what happens elsewhere (a conversation started from a shell,
 * an answer sent with `core reply`, a reason updated), drawing the rules of each channel, and its
 * own controls: release, redeliver, the conversation list, ?session=, history, the keyboard, and
 * the transcript export with identifiers past 2^53 kept exact.
 */

/** The browser's window, as far as these tests use it (the project's types have no DOM). */
interface Window {
  getComputedStyle(element: unknown): { backgroundColor: string };
}

const script: Script = (message) => {
  const to = addressed(message);
  const answerId = `a-${message.questionId}`;
  if (message.text === 'list please') {
    return [
      {
        ...to,
        answerId,
        text: 'Choose one.',
        quickReplies: [
          { type: 'TEXT', text: 'Yes' },
          { type: 'TEXT', text: 'No' },
        ],
        settings: { blockInput: true },
        quickRepliesHeaderFooter: { header: [{ text: 'Your order' }], footer: [{ text: 'Bye' }] },
        messageListPicker: { title: 'Options', sections: [{ items: [{ identifier: 'one', title: 'One' }] }] },
      },
    ];
  }
  if (message.type === 'EMAIL') {
    // First by questionId alone, which chatbot rule 2 forbids for EMAIL; then as the rule says.
    return [
      { questionId: message.questionId, answerId: `${answerId}-wrong`, text: 'Thanks (by questionId).' },
      { ...to, answerId, text: 'Thanks for your email.' },
    ];
  }
  return [{ ...to, answerId, text: message.quickReply ? 'Good.' : `You said: ${message.text}` }];
};

browserTests.describe('the page, following the sandbox', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  browserTests.it(
    'follows conversations started elsewhere, greys what a WEB thread does not show, hands over, releases, and switches conversations',
    async () => {
      const { sandbox, reply } = await pageSandbox(script, { tenants: ['sandbox', 'acme'] });
      const { page, problems, dialogs, context } = await watchedPage(browser);
      await page.goto(`${sandbox.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      expect(await page.textContent('#conversation-list')).toBe('No conversation yet.');
      expect(await page.isDisabled('#message')).toBe(true);

      // A conversation started from a shell opens by itself, and its messages come in live.
      const web = await startConversation(sandbox, { tenant: 'acme' });
      await customerSays(sandbox, web.sessionId, 'list please');
      await page.locator('.bubble.customer', { hasText: 'list please' }).waitFor();
      expect(new URL(page.url()).searchParams.get('session')).toBe(web.sessionId);
      const bot = page.locator('.bubble.bot', { hasText: 'Choose one.' });
      await bot.waitFor();
      expect(await bot.locator('.not-shown-note').allTextContents()).toEqual([
        'Not shown to the customer: the header is shown only on IM threads, and this thread is WEB.',
        'Not shown to the customer: the footer is shown only on IM threads, and this thread is WEB.',
        'Not shown to the customer: the list is shown only on IM threads, and this thread is WEB.',
      ]);
      expect(await bot.locator('.warnings li').allTextContents()).toEqual([
        expect.stringContaining('messageListPicker: the list is shown on IM threads only'),
        expect.stringContaining('quickRepliesHeaderFooter: the header and footer are shown on IM threads only'),
      ]);
      expect(await bot.locator('.list-item').isDisabled()).toBe(true);
      expect(await page.textContent('#channel-note')).toContain('on this WEB thread they are drawn greyed');
      // settings.blockInput: the customer can only press a button.
      expect(await page.isDisabled('#message')).toBe(true);
      expect(await page.textContent('#composer-note')).toContain('settings.blockInput');
      await bot.locator('[data-press="Yes"]').click();
      await page.locator('.bubble.bot', { hasText: 'Good.' }).waitFor();
      expect(await page.isDisabled('#message')).toBe(false);

      // A reason updated by an integrator, live, in its tenant's table.
      const updated = { code: 'LUNCH', reasons: [{ locale: 'en', name: 'Long lunch' }], color: '#000000', active: false };
      expect((await updateReason(sandbox, updated, { tenant: 'acme' })).status).toBe(200);
      const lunch = page.locator('table.reasons', { hasText: 'Tenant acme' }).locator('tr[data-code="LUNCH"]');
      await lunch.locator('td', { hasText: 'en: Long lunch' }).waitFor();
      expect(await lunch.locator('td').allTextContents()).toEqual([' #000000', 'LUNCH', 'en: Long lunch', 'no']);
      expect(
        await lunch.locator('.swatch').evaluate((swatch) => (globalThis as unknown as Window).getComputedStyle(swatch).backgroundColor),
      ).toBe('rgb(0, 0, 0)');
      expect(
        await page.locator('table.reasons', { hasText: 'Tenant sandbox' }).locator('tr[data-code="LUNCH"] td').last().textContent(),
      ).toBe('yes');

      // A greeting sent to the client from elsewhere, as a bubble of its own.
      const greeting = await fetch(`${sandbox.url}/api/v1/chatbot/greet`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sandbox-token', 'X-Tenant-Name': 'acme' },
        body: JSON.stringify({
          coreClientId: Number(web.coreClientId),
          text: 'Hello again!',
          quickReplies: [{ type: 'TEXT', text: 'Hi' }],
        }),
      });
      expect(greeting.status).toBe(200);
      const greeted = page.locator('.bubble.bot[data-kind="greeting"]');
      await greeted.locator('.message-text', { hasText: 'Hello again!' }).waitFor();
      expect(await greeted.locator('.meta').textContent()).toBe('Bot · Greeting');
      expect(await greeted.locator('[data-press="Hi"]').isEnabled()).toBe(true);

      // An answer sent elsewhere hands the thread over; the page gives it back.
      const question = sandbox.events({ sessionId: web.sessionId }).find((e) => e.type === 'customer.message')!;
      const questionId = (question as { questionId: bigint }).questionId;
      expect(await reply({ questionId, answerId: 'h-1', text: 'To billing.', code: 'SWITCH_TO_HUMAN', unitIds: [3n] }, 'acme')).toBe(200);
      await page.locator('.system-handover', { hasText: 'Handed over to agents (SWITCH_TO_HUMAN) · units 3' }).waitFor();
      await page.locator('#owner', { hasText: /(With agents?\b.*|In the queue for an agent) since SWITCH_TO_HUMAN/ }).waitFor();
      await page.locator(`#conversation-list a[data-session="${web.sessionId}"] .badge.agents`).waitFor();
      await page.click('#release');
      await page.locator('.system-released', { hasText: 'Given back to the bot' }).waitFor();
      await eventually(() => page.textContent('#owner')).toBe('With the bot.');
      expect(await page.locator('#release').count()).toBe(0);

      // Another conversation starts: listed first, marked, not opened.
      const email = await startConversation(sandbox, { channel: 'EMAIL' });
      const emailLink = page.locator(`#conversation-list a[data-session="${email.sessionId}"]`);
      await emailLink.locator('.dot').waitFor();
      expect(await page.locator('#conversation-list a').first().getAttribute('data-session')).toBe(email.sessionId);
      expect(await page.textContent('#conversation-title')).toBe(`Conversation ${web.sessionId}`);

      // Alt+Up opens it; / writes; the bot's answer by questionId alone breaks chatbot rule 2.
      await page.keyboard.press('Alt+ArrowUp');
      await page.locator('#conversation-title', { hasText: email.sessionId }).waitFor();
      expect(new URL(page.url()).searchParams.get('session')).toBe(email.sessionId);
      expect(await page.textContent('#channel-note')).toContain('chatbot rule 2');
      await page.keyboard.press('/');
      expect(await page.evaluate<string>('document.activeElement.id')).toBe('message');
      await page.keyboard.type('About my invoice');
      await page.keyboard.press('Enter');
      const refused = page.locator('.bubble.bot.undelivered');
      await refused.waitFor();
      expect(await refused.locator('.not-delivered').textContent()).toMatch(
        /^Not delivered: EMAIL question not addressed by sessionId and questionIndex — .*chatbot rule 2/,
      );
      await page.locator('.bubble.bot:not(.undelivered)', { hasText: 'Thanks for your email.' }).waitFor();

      // Back goes to the conversation before; ?session= opens one on load.
      await page.goBack();
      await page.locator('#conversation-title', { hasText: web.sessionId }).waitFor();
      await page.goto(`${sandbox.url}/?session=${web.sessionId}`);
      await page.waitForSelector('body[data-ready="true"]');
      expect(await page.textContent('#conversation-title')).toBe(`Conversation ${web.sessionId}`);
      await page.goto(`${sandbox.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      expect(await page.textContent('#conversation-title')).toBe(`Conversation ${email.sessionId}`);

      expect(problems).toEqual([]);
      expect(dialogs).toEqual([]);
      await context.close();
    },
  );

  browserTests.it(
    'starts an authorized conversation for a client past 2^53, redelivers a webhook, refuses a strict second answer, and exports the transcript exactly',
    async () => {
      const { sandbox, reply } = await pageSandbox(script, { duplicates: 'strict' });
      const { page, problems, context } = await watchedPage(browser, { acceptDownloads: true });
      await page.goto(`${sandbox.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      await page.check('#client-authorized');
      await page.fill('#client-id', 'customer-42');
      await page.fill('#core-client-id', '9223372036854775807');
      await page.click('#start');
      await page
        .locator('.conversation-facts', { hasText: 'coreClientId 9223372036854775807 · authorized, clientId customer-42' })
        .waitFor();
      const sessionId = new URL(page.url()).searchParams.get('session')!;

      await page.fill('#message', 'hello');
      await page.keyboard.press('Enter');
      await page.locator('.bubble.bot', { hasText: 'You said: hello' }).waitFor();
      const exchange = page.locator('details.exchange');
      await eventually(() => exchange.locator('summary').textContent()).toMatch(/^Webhook: delivered, 200/);
      await exchange.locator('summary').click();
      await exchange.locator('.redeliver').focus();
      await page.keyboard.press('Enter');
      // The same webhook again: the bot answers with the same answerId, which is not delivered twice.
      await exchange.locator('tbody tr', { hasText: 'redelivery 1, attempt 1' }).waitFor();
      // The exchange was drawn again as its events came; the focus stayed on its button.
      expect(await page.evaluate<string>('document.activeElement.className')).toBe('redeliver');
      await page.locator('.bubble.bot.undelivered', { hasText: 'Not delivered: duplicate answerId' }).waitFor();
      expect(await exchange.locator('.requests li').count()).toBe(2);
      // A second answer to the answered question, in strict mode (chatbot rule 7).
      const question = [...sandbox.events({ sessionId })].find((e) => e.type === 'customer.message') as { questionId: bigint };
      expect(await reply({ questionId: question.questionId, answerId: 'second', text: 'Hello again' })).toBe(409);
      await page.locator('.bubble.bot.undelivered', { hasText: 'Not delivered: question already answered (strict mode)' }).waitFor();

      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
      expect(download.suggestedFilename()).toBe(`transcript-${sessionId}.json`);
      const text = readFileSync((await download.path())!, 'utf8');
      expect(text).toContain('"coreClientId": 9223372036854775807');
      const transcript = parseJson(text) as {
        conversation: { coreClientId: bigint; clientId: string };
        events: { seq: bigint; type: string }[];
      };
      expect(transcript.conversation).toMatchObject({ coreClientId: 9223372036854775807n, clientId: 'customer-42' });
      expect(transcript.events.map((e) => e.type)).toEqual([...sandbox.events({ sessionId })].map((e) => e.type));
      expect(problems).toEqual([]);
      await context.close();
    },
  );
});
