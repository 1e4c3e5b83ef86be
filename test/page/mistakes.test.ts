import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { CHECK_IDS } from '../../src/testing/check-bot/ids.js';
import { startBot } from '../check-bot/bots.js';
import { browserTests, launchBrowser, watchedPage } from '../helpers/browser.js';
import { runInProcess } from '../helpers/run.js';
import { call, customerSays, sandbox as testSandbox, startConversation } from '../sandbox/helpers.js';
import { addressed, pageSandbox, type Script } from './bot.js';

/**
 * Mistakes that look right, drawn as what they are: a replay of an answered question answered a
 * second time (red, counted in the conversation's badge), a delivery the sandbox crafted to be
 * refused that the bot accepted (red), a crafted delivery the bot refused (marked as crafted, not
 * red), and the conversations of `core check-bot` labelled with their check and its verdict.
 */

/** The browser's window, as far as this test uses it (the project's types have no DOM). */
interface Window {
  getComputedStyle(element: unknown): { color: string; borderColor: string };
}

/** --error-text of page.css, as the browser computes it. */
const ERROR_RED = 'rgb(138, 28, 28)';

// Answers every attempt anew (a new answerId each time, so a replay is answered twice), but refuses
// with 401 what the test marks to refuse.
const script: Script = (message, { attempt }) => {
  if (message.text.includes('(wrong-secret)')) return { answers: [], status: 401 };
  return [{ ...addressed(message), answerId: `a-${message.questionId}-${attempt}`, text: `You said: ${message.text}` }];
};

const probe = (sb: { url: string }, body: Record<string, unknown>) => call(sb, '/_sandbox/probes', { body, token: null, tenant: null });

browserTests.describe('the page, drawing the mistakes that look right', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  browserTests.it('draws a replay answered a second time red, as a mistake of the bot, counted in the badge', async () => {
    const { sandbox } = await pageSandbox(script);
    const { sessionId } = await startConversation(sandbox);
    const asked = await customerSays(sandbox, sessionId, 'Where is my order?');
    const { page, problems } = await watchedPage(browser);
    await page.goto(`${sandbox.url}/?session=${sessionId}`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.locator('.bubble.bot', { hasText: 'You said: Where is my order?' }).first().waitFor();
    expect(await page.locator('.bubble.bot.mistake').count()).toBe(0);

    // The delivery of the answered question, sent again: the bot answers it anew.
    const deliveryId = String(asked.deliveryId);
    expect((await call(sandbox, `/_sandbox/deliveries/${deliveryId}/redeliver`, { body: {}, token: null, tenant: null })).status).toBe(202);
    const twice = page.locator('.bubble.bot.mistake');
    await twice.waitFor();
    expect(await twice.locator('.badge.mistake').textContent()).toBe('answered twice');
    expect(await twice.locator('.mistake-note').textContent()).toMatch(
      /^Mistake of the bot: answered twice: this question’s webhook was sent again \(a replay of a delivery already answered\)/,
    );
    expect(await twice.evaluate((element) => (globalThis as unknown as Window).getComputedStyle(element).borderColor)).toBe(ERROR_RED);
    const badge = page.locator(`#conversation-list li[data-session="${sessionId}"] .badge.refused`);
    await badge.waitFor();
    expect(await badge.textContent()).toBe('\u2717 1 mistake');
    const exchange = page.locator('details.exchange.has-mistake > summary');
    expect(await exchange.textContent()).toMatch(/^\u2717 1 mistake of the bot · /);
    expect(await exchange.evaluate((element) => (globalThis as unknown as Window).getComputedStyle(element).color)).toBe(ERROR_RED);

    // Loaded afresh, the page counts it from what the sandbox kept.
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await page.locator('.bubble.bot.mistake').waitFor();
    expect(await page.locator(`#conversation-list li[data-session="${sessionId}"] .badge.refused`).textContent()).toBe('\u2717 1 mistake');
    expect(problems).toEqual([]);
  });

  browserTests.it('draws a tampered delivery the bot accepted red, and marks a crafted delivery it refused as crafted only', async () => {
    const { sandbox } = await pageSandbox(script);
    const accepted = await startConversation(sandbox);
    const refused = await startConversation(sandbox);
    const { page, problems } = await watchedPage(browser);
    await page.goto(`${sandbox.url}/?session=${accepted.sessionId}`);
    await page.waitForSelector('body[data-ready="true"]');

    expect((await probe(sandbox, { sessionId: accepted.sessionId, craft: 'tampered' })).status).toBe(200);
    const red = page.locator('details.exchange.has-mistake');
    await red.waitFor();
    expect(await red.locator('> summary').textContent()).toMatch(
      /^\u2717 1 mistake of the bot · Crafted delivery: its body changed after signing \(a tampered signature\) · Webhook: delivered, 200/,
    );
    expect(await red.locator('.mistakes li').allTextContents()).toEqual([
      'Mistake of the bot: the bot accepted this delivery (200), but its signature does not match its body: it should refuse it with 401',
    ]);
    expect(await red.evaluate((element) => (globalThis as unknown as Window).getComputedStyle(element).borderColor)).toBe(ERROR_RED);
    await page.locator(`#conversation-list li[data-session="${accepted.sessionId}"] .badge.refused`, { hasText: '1 mistake' }).waitFor();

    // Signed with another secret and refused with 401: right, so marked as crafted, nothing red.
    expect((await probe(sandbox, { sessionId: refused.sessionId, craft: 'wrong-secret' })).status).toBe(200);
    await page.locator(`#conversation-list a[data-session="${refused.sessionId}"]`).click();
    const crafted = page.locator('details.exchange.crafted');
    await crafted.waitFor();
    expect(await crafted.locator('> summary').textContent()).toMatch(
      /^Crafted delivery: signed with another secret · Webhook: failed, 401/,
    );
    expect(await crafted.getAttribute('class')).not.toContain('has-mistake');
    await crafted.locator('> summary').click();
    expect(await crafted.locator('.crafted-note').textContent()).toBe(
      'The sandbox crafted this delivery on purpose (POST /_sandbox/probes, as core check-bot does): wrong-secret: signed with another secret.',
    );
    expect(await crafted.locator('tr.attempt.crafted .craft').textContent()).toBe(
      ' \u00b7 crafted (wrong-secret): signed with another secret',
    );
    expect(await page.locator(`#conversation-list li[data-session="${refused.sessionId}"] .badge.refused`).count()).toBe(0);
    expect(problems).toEqual([]);
  });

  browserTests.it(
    'labels each conversation of a core check-bot --sandbox run with its check id and verdict, in the list and the header',
    async () => {
      const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
      // A bot that takes any v1 signature: it fails the checks of a tampered body and another secret.
      const bot = await startBot(secret, { signature: 'not-compared' });
      const sb = await testSandbox({ botUrl: bot.url, webhookSecret: secret });
      bot.connect(sb.url);
      const { page, problems } = await watchedPage(browser);
      await page.goto(`${sb.url}/`);
      await page.waitForSelector('body[data-ready="true"]');

      const run = await runInProcess(['check-bot', '--sandbox', sb.url, '--timeout', '2s', '--reporter', 'json']);
      expect(run.code).toBe(3);
      const report = JSON.parse(run.stdout) as { checks: { id: string; status: 'pass' | 'fail'; sessionId: string | null }[] };
      expect(report.checks.map((check) => check.id)).toEqual([...CHECK_IDS]);
      const verdicts = Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
      expect(verdicts).toMatchObject({ answers: 'pass', 'signature.tampered': 'fail', 'signature.wrong-secret': 'fail' });

      for (const check of report.checks) {
        const label = page.locator(`#conversation-list li[data-session="${check.sessionId}"] .badge.check`);
        await label.filter({ hasText: `${check.id} \u00b7 ${check.status}` }).waitFor();
        expect(await label.getAttribute('class')).toBe(`badge check check-${check.status}`);
      }
      const tampered = report.checks.find((check) => check.id === 'signature.tampered')!;
      await page.locator(`#conversation-list a[data-session="${tampered.sessionId}"]`).click();
      await page.locator('#check-label', { hasText: 'signature.tampered' }).waitFor();
      expect(await page.locator('#check-label').textContent()).toMatch(
        /^core check-bot plays the check signature\.tampered here: fail — a delivery whose body was changed after signing: the bot accepted it/,
      );
      expect(await page.locator('#conversation-title .badge.check').textContent()).toBe('signature.tampered \u00b7 fail');
      // What the bot did wrong there is drawn red as well.
      await page.locator('details.exchange.has-mistake').waitFor();
      expect(problems).toEqual([]);
    },
  );
});
