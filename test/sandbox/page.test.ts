import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, pageFiles, pageFolder } from '../../src/sandbox/page.js';
import type { BotAnswerEvent } from '../../src/sandbox/events.js';
import { askedQuestion, call, eventOf, replyBody, sandbox, sendReply } from './helpers.js';

/**
 * The page's files as the sandbox serves them (docs/sandbox.md, "The page"): GET / and
 * GET /_sandbox/page/<file>, each with the strict Content-Security-Policy and nosniff, behind the
 * Host check; nothing else is served; no file loads anything from another site; and the bot's
 * Markdown recorded as safe HTML for the page. What the page draws is tested in a browser (test/page/).
 */

const folder = fileURLToPath(pageFolder);

/** GET with a Host of the test's choosing (fetch cannot set one). */
function get(
  sb: { port: number },
  path: string,
  host: string,
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: sb.port, path, setHost: false, headers: { Host: host } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The directives of a Content-Security-Policy header, by name. */
function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0] !== '')
      .map(([name, ...values]) => [name!, values]),
  );
}

describe('the page and its files', () => {
  it('serves GET / as HTML that loads only its own module script and style sheet', async () => {
    const sb = await sandbox();
    const response = await fetch(`${sb.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toContain('<script type="module" src="/_sandbox/page/app.js"></script>');
    expect(html).toContain('<link rel="stylesheet" href="/_sandbox/page/page.css" />');
    // No inline script, no inline style, no inline event handler.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
  });

  it('opens a conversation by ?session=, the page reading it itself', async () => {
    const sb = await sandbox();
    const response = await fetch(`${sb.url}/?session=s-000000000000`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  it.each(Object.entries(pageFiles))('serves %s with its media type, the policy and nosniff', async (name, type) => {
    const sb = await sandbox();
    const response = await fetch(`${sb.url}${name === 'index.html' ? '/' : `/_sandbox/page/${name}`}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(type);
    expect(response.headers.get('content-security-policy')).toBe(contentSecurityPolicy);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await response.text()).toBe(readFileSync(`${folder}${name}`, 'utf8'));
  });

  it('sends a Content-Security-Policy with no inline script, no eval, no plugins, no frames and no <base>', () => {
    const policy = directives(contentSecurityPolicy);
    expect(policy.get('default-src')).toEqual(["'none'"]);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('style-src')).toEqual(["'self'"]);
    expect(policy.get('connect-src')).toEqual(["'self'"]);
    expect(policy.get('object-src')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(policy.get('form-action')).toEqual(["'none'"]);
    expect(policy.get('require-trusted-types-for')).toEqual(["'script'"]);
    // Images may come from anywhere: they are the bot's attachments.
    expect(policy.get('img-src')).toEqual(['*']);
    expect(contentSecurityPolicy).not.toMatch(/unsafe-inline|unsafe-eval|unsafe-hashes|data:|blob:/);
  });

  it('serves every file of the page folder, and only those', () => {
    expect(readdirSync(folder).sort()).toEqual(Object.keys(pageFiles).sort());
  });

  it('loads nothing from another site: no absolute URL in an import, src, href or url()', () => {
    for (const name of Object.keys(pageFiles)) {
      const text = readFileSync(`${folder}${name}`, 'utf8');
      expect(text, name).not.toMatch(/(?:\bfrom\s*['"]|\bimport\s*\(\s*['"]|\bsrc=['"]?|\bhref=['"]?|url\(\s*['"]?)(?:https?:)?\/\//i);
      expect(text, name).not.toMatch(/@import/);
    }
  });

  it.each([
    '/_sandbox/page/server.ts',
    '/_sandbox/page/..%2Fserver.ts',
    '/_sandbox/page/..%2F..%2Fpackage.json',
    '/_sandbox/page/',
    '/_sandbox/page/index.html.map',
    '/index.html',
    '/app.js',
  ])('answers 404 to %s', async (path) => {
    const sb = await sandbox();
    const response = await fetch(`${sb.url}${path}`);
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('import ');
  });

  it('answers 405 to a POST to the page', async () => {
    const sb = await sandbox();
    const result = await call(sb, '/', { body: {}, token: null, tenant: null });
    expect(result.status).toBe(405);
    expect(result.headers.get('allow')).toBe('GET');
  });

  it.each(['/', '/_sandbox/page/app.js', '/_sandbox/page/index.html'])(
    'refuses %s with 403 when the Host is another name (DNS rebinding)',
    async (path) => {
      const sb = await sandbox();
      const refused = await get(sb, path, `attacker.example:${sb.port}`);
      expect(refused.status).toBe(403);
      expect(refused.text).not.toContain('<html');
      expect((await get(sb, path, `localhost:${sb.port}`)).status).toBe(200);
    },
  );
});

describe("the bot's Markdown, recorded as safe HTML for the page", () => {
  it('writes formattedText as safe HTML into the bot.answer event, and null without it', async () => {
    const sb = await sandbox();
    const asked = await askedQuestion(sb);
    const markdown = '**Shipped** [track](https://example.com/t) <img src=x onerror=alert(1)> [x](javascript:alert(1))';
    await sendReply(sb, replyBody({ coreClientId: undefined, questionId: asked.questionId, text: 'Shipped', formattedText: markdown }));
    const answer = await eventOf<BotAnswerEvent>(sb, (e) => e.type === 'bot.answer', 'the answer');
    expect(answer.formattedHtml).toBe(
      '<p><strong>Shipped</strong> <a href="https://example.com/t" rel="noopener noreferrer" target="_blank">track</a> ' +
        '&lt;img src=x onerror=alert(1)&gt; x</p>',
    );
    await sendReply(sb, replyBody({ coreClientId: undefined, questionId: asked.questionId, text: 'plain' }));
    const plain = await eventOf<BotAnswerEvent>(sb, (e) => e.type === 'bot.answer' && e.seq > answer.seq, 'the plain answer');
    expect(plain.formattedHtml).toBeNull();
  });

  it('writes it for an answer that is not delivered too, since the page shows those', async () => {
    const sb = await sandbox({ duplicates: 'strict' });
    const asked = await askedQuestion(sb);
    await sendReply(sb, replyBody({ coreClientId: undefined, questionId: asked.questionId, text: 'one' }));
    const second = await sendReply(sb, replyBody({ coreClientId: undefined, questionId: asked.questionId, formattedText: '*two*' }));
    expect(second.status).toBe(409);
    const refused = await eventOf<BotAnswerEvent>(sb, (e) => e.type === 'bot.answer' && !e.delivered, 'the refused answer');
    expect(refused.formattedHtml).toBe('<p><em>two</em></p>');
  });

  it('counts the HTML against the memory bound of the event log', async () => {
    const sb = await sandbox();
    const asked = await askedQuestion(sb);
    const before = sb.sizes('sandbox').bytes;
    const markdown = '**x** '.repeat(2000);
    const body = replyBody({ coreClientId: undefined, questionId: asked.questionId, text: 'x', formattedText: markdown });
    const sent = await sendReply(sb, body);
    expect(sent.status).toBe(200);
    const answer = await eventOf<BotAnswerEvent>(sb, (e) => e.type === 'bot.answer', 'the answer');
    // The budget counts what the event holds: the body's Markdown and its HTML, a byte a character (both Latin-1).
    expect(sb.sizes('sandbox').bytes - before).toBeGreaterThanOrEqual(markdown.length + answer.formattedHtml!.length);
  });
});
