import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { parseJson } from '../../src/payload/json.js';
import { browserTests, eventually, launchBrowser, watchedPage } from '../helpers/browser.js';
import { baseEnv, runInProcess } from '../helpers/run.js';
import { happens } from '../helpers/wait.js';
import { customerSays, startConversation } from '../sandbox/helpers.js';
import { addressed, pageSandbox, type Script } from './bot.js';

/**
 * The agent's side of the page in a real browser (docs/sandbox.md, "Agents"), with the default
 * agents (Ann 101 skill 12, Boris 102 skill 14, Chen 103 away with LUNCH): who holds the thread at
 * each point, the routing with its rule, "Answer as" seen by a customer waiting in `core customer
 * say --json`, "Give back to the bot", and the status menus following the tenant's active reasons.
 */

/** "person": a hand-over to skill 12; anything else an echo. */
const script: Script = (message) => {
  const to = addressed(message);
  const answerId = `a-${message.questionId}`;
  if (/person/.test(message.text)) return [{ ...to, answerId, text: 'Passing you on.', code: 'SWITCH_TO_HUMAN', skillIds: [12] }];
  return [{ ...to, answerId, text: `You said: ${message.text}` }];
};

browserTests.describe('the agent side of the page', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  browserTests.it(
    'shows who holds the thread, the routing and its rule; an agent answers from the page and the customer sees it; the thread goes back to the bot',
    async () => {
      const { sandbox } = await pageSandbox(script);
      const { page, problems } = await watchedPage(browser);
      await page.goto(`${sandbox.url}/`);
      await page.waitForSelector('body[data-ready="true"]');

      const { sessionId } = await startConversation(sandbox);
      await customerSays(sandbox, sessionId, 'Hello');
      await page.locator('.bubble.bot', { hasText: 'You said: Hello' }).waitFor();
      expect(await page.textContent('#owner')).toBe('With the bot.');
      expect(await page.locator('#agent-composer').count()).toBe(0);

      await customerSays(sandbox, sessionId, 'A person, please');
      await eventually(() => page.textContent('#owner')).toContain('With agent 101 (Ann) since SWITCH_TO_HUMAN');
      const routing = page.locator('.timeline-list li', { hasText: 'Thread with agent 101 (Ann)' });
      expect(await routing.textContent()).toContain(
        'matched by skillIds \u00b7 rule: each target list given narrows (any one of a list, all lists), then the least busy online agent under capacity',
      );
      await eventually(() => page.locator('.agent[data-agent="101"] .agent-facts').textContent()).toContain('1 of 2 held');

      // The customer writes and waits, as core customer say does; Ann answers from the page.
      const env = baseEnv({ CORE_BASE_URL: sandbox.url });
      const waiting = runInProcess(['customer', 'say', 'Is anyone there?', '--session', sessionId, '--json', '--wait', '60s'], { env });
      await page.locator('.bubble.customer', { hasText: 'Is anyone there?' }).waitFor();
      expect(await page.textContent('#agent-send')).toBe('Answer as Ann');
      await page.fill('#agent-message', 'Ann here, how can I help?');
      await page.click('#agent-send');
      const said = await happens(waiting, 'the customer to see the agent', 30_000);
      expect(said.code).toBe(0);
      expect(parseJson(said.stdout)).toMatchObject({
        ok: true,
        agentMessages: [{ agentId: 101n, agentName: 'Ann', text: 'Ann here, how can I help?' }],
        holder: { by: 'agent', agentId: 101n },
      });
      const bubble = page.locator('.bubble.agent', { hasText: 'Ann here, how can I help?' });
      await bubble.waitFor();
      expect(await bubble.locator('.meta').textContent()).toBe('Agent Ann (101)');
      expect(await page.inputValue('#agent-message')).toBe('');

      await page.click('#release');
      await eventually(() => page.textContent('#owner')).toBe('With the bot.');
      expect(await page.locator('#agent-composer').count()).toBe(0);
      await page.locator('.timeline-list li', { hasText: 'Given back to the bot' }).waitFor();
      await eventually(() => page.locator('.agent[data-agent="101"] .agent-facts').textContent()).toContain('0 of 2 held');
      expect(problems).toEqual([]);
    },
  );

  browserTests.it(
    "offers the tenant's active reasons in each status menu, live: a reason made inactive leaves the menus, and an agent away with it shows it is no longer active",
    async () => {
      const { sandbox } = await pageSandbox(script);
      const { page, problems } = await watchedPage(browser);
      await page.goto(`${sandbox.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      const menu = page.locator('#agent-status-sandbox-101');
      await menu.waitFor();
      const options = () =>
        menu.locator('option').evaluateAll((all) => all.map((option) => (option as unknown as { value: string }).value));
      expect(await options()).toContain('away:LUNCH');
      expect(await options()).toContain('away:MEETING');
      expect(await menu.inputValue()).toBe('online');

      // Ann goes away from the page; the queue is routed around her.
      await menu.selectOption('away:MEETING');
      await eventually(() => page.locator('.agent[data-agent="101"]').getAttribute('class')).toContain('agent-away');
      const { sessionId } = await startConversation(sandbox);
      await customerSays(sandbox, sessionId, 'A person, please');
      await eventually(() => page.textContent('#owner')).toContain('In the queue for an agent');
      await eventually(() => page.textContent('.queue')).toContain(sessionId);
      await page.locator('.timeline-list li', { hasText: 'Thread queued: all matching agents are away or full' }).waitFor();

      // Chen starts away with LUNCH; core reason update makes LUNCH inactive.
      expect(await page.locator('#agent-status-sandbox-103').inputValue()).toBe('away:LUNCH');
      const env = baseEnv({ CORE_BASE_URL: sandbox.url, CORE_TENANT: 'sandbox', CORE_TOKEN: 'sandbox-token' });
      const update = await runInProcess(['reason', 'update', '--code', 'LUNCH', '--name', 'en=Lunch', '--inactive'], { env });
      expect(update.stderr).toBe('');
      expect(update.code).toBe(0);
      await eventually(options).not.toContain('away:LUNCH');
      expect(await options()).toContain('away:MEETING');
      await eventually(() => page.locator('.agent[data-agent="103"]').textContent()).toContain('reason no longer active');
      expect(await page.locator('#agent-status-sandbox-103 option:checked').textContent()).toBe('away: LUNCH (reason no longer active)');

      // Ann back online from the page: the queued thread goes to her.
      await menu.selectOption('online');
      await eventually(() => page.textContent('#owner')).toContain('With agent 101 (Ann)');
      await page.locator('.timeline-list li', { hasText: 'Thread with agent 101 (Ann) from the queue' }).waitFor();
      await eventually(() => page.textContent('.queue')).toBe('Queue: empty.');
      expect(problems).toEqual([]);
    },
  );
});
