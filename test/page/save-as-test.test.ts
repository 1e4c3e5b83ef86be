import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { parse } from 'yaml';
import { browserTests, launchBrowser, watchedPage } from '../helpers/browser.js';
import { addressed, pageSandbox } from './bot.js';

/**
 * The page's "Save as test" button (docs/sandbox.md, "The page"): it downloads what
 * GET /_sandbox/conversations/{sessionId}/test answers (the conversation as a `core test` file,
 * YAML), under the file name that answer gives, else `<sessionId>.yaml`. The conversion is the
 * sandbox's (src/testing/record.ts); the page only fetches and saves it.
 */

browserTests.describe('saving a conversation as a test from the page', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  browserTests.it('downloads GET /_sandbox/conversations/{sessionId}/test as the YAML file it names', async () => {
    const { sandbox } = await pageSandbox((message) => [
      {
        ...addressed(message),
        answerId: `a-${message.questionId}`,
        text: `You said: ${message.text}`,
        quickReplies: [{ type: 'TEXT', text: 'Thanks' }],
      },
    ]);
    const { page, problems, context } = await watchedPage(browser, { acceptDownloads: true });
    await page.goto(`${sandbox.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.click('#start');
    await page.fill('#message', 'Where is my order?');
    await page.keyboard.press('Enter');
    await page.locator('[data-press="Thanks"]').click();
    await page.locator('.bubble.customer .chosen', { hasText: 'pressed “Thanks”' }).waitFor();
    await page.locator('.bubble.bot', { hasText: 'You said: Thanks' }).waitFor();
    const sessionId = new URL(page.url()).searchParams.get('session')!;

    const endpoint = `${sandbox.url}/_sandbox/conversations/${sessionId}/test`;
    const [request, download] = await Promise.all([page.waitForRequest(endpoint), page.waitForEvent('download'), page.click('#save-test')]);
    expect(request.method()).toBe('GET');
    const direct = await fetch(endpoint);
    expect(direct.status).toBe(200);
    expect(direct.headers.get('content-type')).toMatch(/^application\/yaml/);
    const named = /filename="([^"]+)"/.exec(direct.headers.get('content-disposition') ?? '')?.[1] ?? `${sessionId}.yaml`;
    expect(download.suggestedFilename()).toBe(named);
    expect(download.suggestedFilename()).toMatch(/\.yaml$/);
    // The same file as the endpoint gives (its comments carry the time it was made).
    const saved = readFileSync((await download.path())!, 'utf8');
    expect(parse(saved)).toEqual(parse(await direct.text()));
    expect(parse(saved)).toMatchObject({ steps: expect.arrayContaining([{ customer: 'Where is my order?' }]) });
    expect(await page.textContent('#notice')).toBe('');
    expect(problems).toEqual([]);
    await context.close();
  });
});
