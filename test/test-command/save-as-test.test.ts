import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { validateTestFile } from '../../src/testing/schema.js';
import { runInProcess } from '../helpers/run.js';
import { call, customerSays, startConversation, type TestSandbox } from '../sandbox/helpers.js';
import { platform, reply, testFolder, type Message } from './platform.js';

/**
 * "Save as test": GET /_sandbox/conversations/{sessionId}/test, the conversation as a core test file,
 * which passes when core test plays it against the same bot.
 */

/** A bot with a bit of everything: patterns in its texts, buttons, a list, identifiers, a hand-over, silence. */
async function bot(message: Message, sb: TestSandbox) {
  if (message.text === 'quiet') return undefined;
  if (message.listItem) return reply(sb, message, { text: `/${message.listItem.identifier}/i` });
  if (/person/.test(message.text)) {
    return reply(sb, message, { text: 'Passing you on.', code: 'SWITCH_TO_HUMAN', skillIds: [9223372036854775807n], userIds: [7n] });
  }
  await reply(sb, message, {
    text: 'Anything else?',
    attachments: [{ url: 'https://example.com/size-chart.png', name: 'size-chart.png' }],
  });
  return reply(sb, message, {
    text: 'Which size?',
    formattedText: '**Which** size?',
    quickReplies: [{ type: 'TEXT', text: 'Talk to a person', shown_text: 'I want a person', payload: null }],
    messageListPicker: { title: 'Sizes', sections: [{ title: 'All', items: [{ identifier: 'size-l', title: 'Large', subTitle: '/L/' }] }] },
    settings: { blockInput: false },
  });
}

/** GET a path of the sandbox as text (the test file is YAML, not JSON). */
async function get(sb: TestSandbox, path: string) {
  const response = await fetch(`${sb.url}${path}`);
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function conversation(sb: TestSandbox) {
  const started = await startConversation(sb, { channel: 'IM', clientId: 'alice@example.com' });
  const events = (type: string) => sb.events({ sessionId: started.sessionId }).filter((e) => e.type === type);
  const settled = async (n: number) => {
    // Each webhook's last attempt is recorded after the bot's answers to it.
    while (events('webhook.attempt').filter((e) => (e as { outcome: string }).outcome !== 'retrying').length < n) {
      await new Promise<void>((resolve) => {
        const stop = sb.subscribe(() => {
          stop();
          resolve();
        });
      });
    }
  };
  await customerSays(sb, started.sessionId, 'Hi: /shirts/');
  await settled(1);
  await customerSays(sb, started.sessionId, { pick: 'size-l' });
  await settled(2);
  await customerSays(sb, started.sessionId, 'quiet');
  await settled(3);
  await customerSays(sb, started.sessionId, 'Hi');
  await settled(4);
  await customerSays(sb, started.sessionId, { press: 'Talk to a person' });
  await settled(5);
  await customerSays(sb, started.sessionId, 'Hello?');
  return started.sessionId;
}

describe('GET /_sandbox/conversations/{sessionId}/test', () => {
  it('answers the conversation as a YAML test file to download', async () => {
    const { sb } = await platform(bot);
    const sessionId = await conversation(sb);
    const saved = await get(sb, `/_sandbox/conversations/${sessionId}/test`);
    expect(saved.status).toBe(200);
    expect(saved.headers.get('content-type')).toBe('application/yaml; charset=utf-8');
    expect(saved.headers.get('content-disposition')).toBe('attachment; filename="hi-shirts.yaml"');
    expect(saved.text.split('\n').slice(0, 3)).toEqual([
      '# yaml-language-server: $schema=https://unpkg.com/core-cli/docs/schemas/test.schema.json',
      expect.stringMatching(new RegExp(`^# Saved from the sandbox conversation ${sessionId} \\(tenant sandbox\\) on \\d{4}-`)),
      '# Run it with: core test FILE --bot-url URL (docs/testing-bots.md)',
    ]);
    const value = YAML.parse(saved.text, { intAsBigInt: true }) as Record<string, unknown>;
    expect(validateTestFile(value)).toMatchObject({ ok: true });
    expect(value).toEqual({
      name: 'Hi: /shirts/',
      channel: 'IM',
      client: { clientId: 'alice@example.com' },
      steps: [
        { customer: 'Hi: /shirts/' },
        {
          bot: {
            text: 'Anything else?',
            code: 'SUCCESS',
            attachments: [{ url: 'https://example.com/size-chart.png', name: 'size-chart.png' }],
          },
        },
        {
          bot: {
            text: 'Which size?',
            formattedText: '**Which** size?',
            quickReplies: [{ type: 'TEXT', text: 'Talk to a person', shown_text: 'I want a person', payload: null }],
            messageListPicker: {
              title: 'Sizes',
              sections: [{ title: 'All', items: [{ identifier: 'size-l', title: 'Large', subTitle: '/^\\/L\\/$/' }] }],
            },
            settings: { blockInput: false },
            code: 'SUCCESS',
          },
        },
        { press: 'size-l' },
        { bot: { text: '/^\\/size-l\\/i$/', code: 'SUCCESS' } },
        { customer: 'quiet' },
        { bot: 'none' },
        { customer: 'Hi' },
        expect.objectContaining({ bot: expect.objectContaining({ text: 'Anything else?' }) }),
        expect.objectContaining({ bot: expect.objectContaining({ text: 'Which size?' }) }),
        { press: 'Talk to a person' },
        { bot: { text: 'Passing you on.', code: 'SWITCH_TO_HUMAN', userIds: [7n], skillIds: [9223372036854775807n] } },
        { customer: 'Hello?' },
        { bot: 'none' },
      ],
    });
    expect(saved.text).toContain('skillIds:\n        - 9223372036854775807\n');
  });

  it('saves a file that passes when core test plays it against the same bot', async () => {
    const { sb, env } = await platform(bot);
    const sessionId = await conversation(sb);
    const saved = await get(sb, `/_sandbox/conversations/${sessionId}/test`);
    const folder = testFolder({});
    writeFileSync(join(folder, 'saved.yaml'), saved.text);
    const result = await runInProcess(['test', 'saved.yaml', '--sandbox', sb.url], { env, cwd: folder });
    expect(result.stdout).toMatch(/^✓ Hi: \/shirts\/ \(saved\.yaml:4, /m);
    expect(result.code).toBe(0);
  });

  it('writes a ${ of the conversation as $${, so the saved file reads back as it was and passes', async () => {
    const { sb, env } = await platform((message, sandbox) => reply(sandbox, message));
    const started = await startConversation(sb, { channel: 'WEB' });
    await customerSays(sb, started.sessionId, 'Total: ${total} in /${currency}/');
    // The answer is recorded before the webhook's attempt.
    while (!sb.events({ sessionId: started.sessionId }).some((e) => e.type === 'webhook.attempt')) {
      await new Promise<void>((resolve) => {
        const stop = sb.subscribe(() => {
          stop();
          resolve();
        });
      });
    }
    const saved = await get(sb, `/_sandbox/conversations/${started.sessionId}/test`);
    expect(YAML.parse(saved.text)).toMatchObject({
      name: 'Total: $${total} in /$${currency}/',
      steps: [{ customer: 'Total: $${total} in /$${currency}/' }, { bot: { text: 'You said: Total: $${total} in /$${currency}/' } }],
    });
    const folder = testFolder({});
    writeFileSync(join(folder, 'saved.yaml'), saved.text);
    const result = await runInProcess(['test', 'saved.yaml', '--sandbox', sb.url], { env, cwd: folder });
    expect(result.stdout).toMatch(/^✓ Total: \$\{total\} in \/\$\{currency\}\/ \(saved\.yaml:4, /m);
    expect(result.code).toBe(0);
  });

  it('leaves out answers the customer never got, and names what it cannot replay', async () => {
    const late = async (message: Message, sb: TestSandbox) => {
      await reply(sb, message, { text: 'Passing you on.', code: 'SWITCH_TO_HUMAN' });
      await reply(sb, message, { text: 'refused: the thread is with agents' });
    };
    const { sb } = await platform(late);
    const started = await startConversation(sb);
    await customerSays(sb, started.sessionId, 'Hi');
    await new Promise<void>((resolve) => {
      const stop = sb.subscribe((event) => {
        if (event.type === 'webhook.attempt') {
          stop();
          resolve();
        }
      });
    });
    await call(sb, `/_sandbox/conversations/${started.sessionId}/release`, { token: null, tenant: null, body: {} });
    const saved = await get(sb, `/_sandbox/conversations/${started.sessionId}/test`);
    expect(saved.text).not.toContain('refused');
    expect(YAML.parse(saved.text)).toMatchObject({ steps: [{ customer: 'Hi' }, { bot: { code: 'SWITCH_TO_HUMAN' } }, { release: true }] });
    expect(saved.headers.get('content-disposition')).toBe('attachment; filename="hi.yaml"');
  });

  it("saves an agent's messages and the thread given back as steps, and the file passes again", async () => {
    const handing = (message: Message, sb: TestSandbox) =>
      /person/.test(message.text)
        ? reply(sb, message, { text: 'Passing you on.', code: 'SWITCH_TO_HUMAN', skillIds: [12n] })
        : reply(sb, message, { code: 'SUCCESS' });
    const { sb, env } = await platform(handing);
    const started = await startConversation(sb);
    const answered = (questions: number) =>
      new Promise<void>((resolve) => {
        const check = () => sb.events({ sessionId: started.sessionId }).filter((e) => e.type === 'bot.answer').length >= questions;
        if (check()) return resolve();
        const stop = sb.subscribe(() => {
          if (!check()) return;
          stop();
          resolve();
        });
      });
    await customerSays(sb, started.sessionId, 'A person, please');
    await answered(1);
    await customerSays(sb, started.sessionId, 'Hello?');
    const path = `/_sandbox/conversations/${started.sessionId}`;
    expect((await call(sb, `${path}/agent-messages`, { token: null, tenant: null, body: { text: 'Ann here' } })).status).toBe(201);
    expect((await call(sb, `${path}/release`, { token: null, tenant: null, body: {} })).status).toBe(200);
    await customerSays(sb, started.sessionId, 'Thanks');
    await answered(2);
    const saved = await get(sb, `${path}/test`);
    expect(YAML.parse(saved.text).steps).toEqual([
      { customer: 'A person, please' },
      { bot: { text: 'Passing you on.', code: 'SWITCH_TO_HUMAN', skillIds: [12] } },
      { customer: 'Hello?' },
      { bot: 'none' },
      { agent: 'Ann here' },
      { release: true },
      { customer: 'Thanks' },
      { bot: { text: 'You said: Thanks', code: 'SUCCESS' } },
    ]);
    expect(saved.text).not.toContain('# Note');
    const folder = testFolder({});
    writeFileSync(join(folder, 'saved.yaml'), saved.text);
    const result = await runInProcess(['test', 'saved.yaml', '--sandbox', sb.url], { env, cwd: folder });
    expect(result.stdout).toMatch(/^✓ A person, please \(saved\.yaml:4, /m);
    expect(result.code).toBe(0);
  });

  it('refuses an unknown conversation (404) and a foreign Host (403)', async () => {
    const { sb } = await platform(bot);
    expect((await get(sb, '/_sandbox/conversations/s-000000000000/test')).status).toBe(404);
    const { request } = await import('node:http');
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request({
        host: '127.0.0.1',
        port: sb.port,
        path: '/_sandbox/conversations/s-000000000000/test',
        headers: { Host: 'evil.example' },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });
});
