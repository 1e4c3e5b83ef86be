import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, onTestFinished } from 'vitest';
import { browserTests, launchBrowser, rebindingHost, watchedPage } from '../helpers/browser.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { customerSays, startConversation, updateReason } from '../sandbox/helpers.js';
import { addressed, pageSandbox } from './bot.js';

/**
 * The page's safety in a real browser (docs/sandbox.md, "The page", and docs/security.md): whatever
 * the bot, the customer or the sandbox's own settings hold, no script runs in the page, no element
 * gets an event-handler attribute, and no link or image points anywhere but http(s) and mailto; and
 * another site cannot drive the sandbox through the browser.
 */

/** Every payload sets window.__pwned (or opens a dialog) if it ever runs. */
const run = 'window.__pwned=1';
const script = `<script>${run}</script>`;
const img = `<img src=x onerror=${run}>`;
const js = `javascript:${run}`;

/** What the page holds that would let a payload act: checked in the page itself. */
async function inspect(page: Page) {
  return page.evaluate<{
    pwned: boolean;
    handlers: string[];
    links: string[];
    images: string[];
    scripts: number;
    embeds: number;
  }>(`(() => {
    const all = [...document.querySelectorAll('*')];
    return {
      pwned: window.__pwned !== undefined,
      handlers: all.flatMap((el) => [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => el.tagName + ' ' + a.name)),
      links: [...document.querySelectorAll('a[href]')].map((a) => a.href).filter((href) => !/^(https?|mailto):/.test(href)),
      images: [...document.querySelectorAll('img')].map((i) => i.getAttribute('src')).filter((src) => !/^https?:/.test(src ?? '') && src !== null),
      scripts: document.scripts.length,
      embeds: document.querySelectorAll('iframe, object, embed, base, frame, meta[http-equiv]').length,
    };
  })()`);
}

browserTests.describe("the page's safety", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  browserTests.it(
    'runs no script from hostile text in any field: bot answers, buttons, lists, header, footer, attachments, ids, customer text, tenant names and reasons',
    async () => {
      const tenant = `<img/src=x/onerror=${run}>`;
      const { sandbox, reply } = await pageSandbox(
        (message) => {
          if (message.quickReply !== null || message.listItem !== null) return [];
          const to = addressed(message);
          return [
            {
              ...to,
              answerId: `"><img src=x onerror=${run}>`,
              text: script,
              formattedText: `${img} [click](${js}) ${script} <a href="${js}">a</a> ![i](${js}) <iframe src="${js}"></iframe>`,
              segmentationInfo: { [img]: script },
              attachments: [
                // The schema takes only http(s) attachment URLs; what they may hold is still hostile.
                { url: `https://evil.example/a?"><script>${run}</script>`, name: img, type: `"><script>${run}</script>` },
                { url: `https://evil.example/x.png" onerror="${run}`, name: 'x.png', type: 'image/png' },
                { url: `https://evil.example/${img}`, name: 'page.html', type: 'text/html' },
              ],
              quickReplies: [
                { type: 'TEXT', text: img, imageUrl: js, url: js, callback_data: script, shown_text: script },
                { type: 'CONTACT', text: `" onmouseover="${run}` },
              ],
              quickRepliesHeaderFooter: {
                header: [{ text: script, imageUrl: js, documentUrl: js, documentName: img }],
                footer: [{ text: img }],
              },
              messageListPicker: {
                header: { text: img },
                footer: { text: script },
                title: '<b onclick=alert(1)>',
                sections: [
                  {
                    title: '<svg onload=alert(1)>',
                    items: [{ identifier: `"><script>${run}</script>`, title: '<img src=x onerror=a()>', subTitle: img }],
                  },
                ],
              },
            },
            // Refused before an answer is recorded (an unknown field): the page shows the sandbox's message.
            { ...to, text: 'x', [img]: script },
          ];
        },
        {
          tenants: [tenant, 'sandbox'],
          reasons: [{ code: script, reasons: [{ locale: 'en', name: img }], color: '#FFFFFF', active: true }],
        },
      );
      const { page, problems, dialogs, context } = await watchedPage(browser);
      await page.goto(`${sandbox.url}/`);
      await page.waitForSelector('body[data-ready="true"]');

      // The customer writes hostile text on an IM thread of the hostile tenant, then presses and picks.
      await page.selectOption('#tenant', tenant);
      await page.selectOption('#channel', 'IM');
      await page.click('#start');
      await page.fill('#message', img);
      await page.click('#send');
      await page.locator('.bubble.bot .list-picker').waitFor();
      await page.locator('.api-request.refused').waitFor({ state: 'attached' });
      await page.locator('.quick-reply').first().click();
      await page.locator('.bubble.customer .chosen', { hasText: 'pressed' }).waitFor();
      await page.locator('.list-open').click();
      await page.locator('.list-item').first().click();
      await page.locator('.bubble.customer .chosen', { hasText: 'picked' }).waitFor();
      // A reason updated with hostile names, live.
      expect((await updateReason(sandbox, { code: script, reasons: [{ locale: 'en', name: `${img}!` }] }, { tenant })).status).toBe(200);
      await page.locator('#reasons td', { hasText: `en: ${img}!` }).waitFor();
      // Every exchange and request detail opened, so nothing hostile stays unrendered.
      for (const summary of await page.locator('details > summary').all()) await summary.click();

      const found = await inspect(page);
      expect(found).toEqual({ pwned: false, handlers: [], links: [], images: [], scripts: 1, embeds: 0 });
      expect(dialogs).toEqual([]);
      expect(problems).toEqual([]);

      // Everything was drawn, as text.
      const bot = page.locator('.bubble.bot').first();
      expect(await bot.locator('.message-text').textContent()).toBe(
        `${img} click ${script} <a href="${js}">a</a> i <iframe src="${js}"></iframe>`,
      );
      expect(await bot.locator('.markdown a').count()).toBe(0);
      expect(await bot.locator('.im-header-text').textContent()).toBe(script);
      expect(await bot.locator('.im-footer').textContent()).toBe(img);
      expect(await bot.locator('.attachment').allTextContents()).toEqual([
        `\u{1F4CE} ${img} · "><script>${run}</script>`,
        `x.png · image/png`,
        '\u{1F4CE} page.html · text/html',
      ]);
      expect(await bot.locator('.quick-reply').allTextContents()).toEqual([img, `contact" onmouseover="${run}`]);
      expect(await bot.locator('.list-open').textContent()).toBe('\u2630 <b onclick=alert(1)>');
      expect(await bot.locator('.list-section-title').textContent()).toBe('<svg onload=alert(1)>');
      expect(await bot.locator('.list-item-subtitle').textContent()).toBe(img);
      expect(await bot.locator('.request pre').textContent()).toContain(`"segmentationInfo": {\n    "${img}": "${script}"`);
      expect(await page.locator('.bubble.customer .message-text').allTextContents()).toEqual([img, script, '<img src=x onerror=a()>']);
      expect(await page.locator('.api-request.refused').textContent()).toContain(`["${img}"]: unknown field`);
      expect(await page.locator('.conversation-facts').textContent()).toContain(`tenant ${tenant}`);
      expect(await page.locator('#reasons caption').allTextContents()).toEqual([`Tenant ${tenant}`, 'Tenant sandbox']);
      expect(await page.locator('#reasons td', { hasText: script }).count()).toBe(2);
      await context.close();
    },
  );

  browserTests.it(
    'lets no other site drive the sandbox: a form post, a no-cors request and a JSON request from another origin change nothing',
    async () => {
      const { sandbox } = await pageSandbox(() => []);
      const target = `${sandbox.url}/_sandbox/conversations`;
      // A page of another origin (another port): an HTML form posting JSON-looking text/plain, and scripts.
      const attacker = createServer((req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<!doctype html>
        <form method="POST" action="${target}" enctype="text/plain"><input name='{"channel":"WEB","x":"' value='"}'></form>
        <form id="urlencoded" method="POST" action="${sandbox.url}/_sandbox/reset"><input name="tenant" value="sandbox"></form>`);
      });
      await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
      onTestFinished(() => new Promise<void>((resolve) => attacker.close(() => resolve())));
      const origin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
      await startConversation(sandbox);
      const before = sandbox.events().length;

      const { page, context } = await watchedPage(browser);
      await page.goto(`${origin}/`);
      const fetched = await page.evaluate<string[]>(`(async () => {
      const outcomes = [];
      await fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: '{"channel":"WEB"}' })
        .then((r) => outcomes.push('no-cors: ' + r.type), (e) => outcomes.push('no-cors: ' + e.name));
      await fetch(${JSON.stringify(target)}, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"channel":"WEB"}' })
        .then((r) => outcomes.push('json: ' + r.status), (e) => outcomes.push('json: ' + e.name));
      return outcomes;
    })()`);
      // The no-cors request arrives as text/plain and is refused (415); the JSON one needs a preflight the sandbox does not grant.
      expect(fetched).toEqual(['no-cors: opaque', 'json: TypeError']);
      for (const [form, url] of [
        ['form:first-of-type', target],
        ['#urlencoded', `${sandbox.url}/_sandbox/reset`],
      ] as const) {
        await page.goto(`${origin}/`);
        const [response] = await Promise.all([
          page.waitForResponse(url),
          page.waitForURL(url),
          page.locator(form).evaluate((element) => (element as unknown as { submit(): void }).submit()),
        ]);
        expect(response.status(), form).toBe(415);
      }
      expect(sandbox.events().length).toBe(before);
      await context.close();
    },
  );

  browserTests.it('answers a page reached through another host name (DNS rebinding) with 403, and serves it nothing', async () => {
    // No bot: the page says so.
    const sandbox = await startSandbox();
    onTestFinished(() => sandbox.close());
    const asked = await startConversation(sandbox);
    await customerSays(sandbox, asked.sessionId, 'a secret question');
    const { page, context } = await watchedPage(browser);
    const rebound = `http://${rebindingHost}:${sandbox.port}`;
    for (const path of ['/', '/_sandbox/page/app.js', '/_sandbox/conversations', `/_sandbox/conversations/${asked.sessionId}`]) {
      const response = await page.goto(`${rebound}${path}`);
      expect(response?.status(), path).toBe(403);
      expect(await page.content(), path).not.toContain('a secret question');
    }
    expect(await page.locator('#timeline').count()).toBe(0);
    // The same page by the sandbox's own address works.
    expect((await page.goto(`${sandbox.url}/`))?.status()).toBe(200);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.textContent('#bot-status')).toBe(
      'No bot connected: customer messages are recorded, no webhook is sent (start core sandbox with --bot-url URL).',
    );
    expect(await page.locator('.bubble.customer', { hasText: 'a secret question' }).count()).toBe(1);
    await context.close();
  });
});
