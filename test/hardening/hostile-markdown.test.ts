import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnv, runInProcess } from '../helpers/run.js';
import { call, replyBody, sandbox, sendReply } from '../sandbox/helpers.js';

/**
 * Hostile Markdown in a bot answer (docs/security.md, "Hostile input"; docs/sandbox.md, "Bounds"): the
 * sandbox stores the answer and shows its Markdown as written, answering 200, never 500; the sandbox
 * answers the next request; `core reply` refuses Markdown it cannot turn into plain text with exit 2.
 * Before the bounds, one 1 MB answer of `*a` held every endpoint for minutes, and deep nesting answered
 * 500 "Maximum call stack size exceeded" (the CLI: exit 1, "unexpected failure").
 */

const hostile = [
  // Just under the sandbox's 1 MB body limit with the rest of the answer.
  { name: '*a repeated to 1 MB', markdown: () => '*a'.repeat(500_000) },
  { name: '* x 100k, a, * x 100k', markdown: () => `${'*'.repeat(100_000)}a${'*'.repeat(100_000)}` },
  { name: '"> " x 100k', markdown: () => '> '.repeat(100_000) },
  { name: '"> " x 10k', markdown: () => '> '.repeat(10_000) },
  { name: '"- " x 10k', markdown: () => `${'- '.repeat(10_000)}a` },
  { name: '* x 5k, a, * x 5k', markdown: () => `${'*'.repeat(5_000)}a${'*'.repeat(5_000)}` },
];

describe('the sandbox and hostile Markdown in a bot answer', () => {
  it.each(hostile)('$name: stored and delivered (200), its Markdown shown as written', async ({ markdown }) => {
    const sb = await sandbox();
    const formattedText = markdown();
    const result = await sendReply(sb, replyBody({ text: 'plain', formattedText }));
    expect(result.status).toBe(200);
    const answer = sb.events().find((event) => event.type === 'bot.answer') as { formattedHtml: string; body: { formattedText: string } };
    expect(answer.body.formattedText === formattedText).toBe(true);
    expect(answer.formattedHtml.startsWith('<p><em>Shown as written, not as Markdown: ')).toBe(true);
    // The sandbox goes on answering.
    expect((await call(sb, '/_sandbox/info', { token: null, tenant: null })).status).toBe(200);
  });

  it('Markdown within the bounds is still rendered', async () => {
    const sb = await sandbox();
    await sendReply(sb, replyBody({ text: 'plain', formattedText: '**Shipped** today: [track it](https://example.com/t)' }));
    const answer = sb.events().find((event) => event.type === 'bot.answer') as { formattedHtml: string };
    expect(answer.formattedHtml).toBe(
      '<p><strong>Shipped</strong> today: <a href="https://example.com/t" rel="noopener noreferrer" target="_blank">track it</a></p>',
    );
  });
});

describe('core reply and Markdown it cannot turn into plain text', () => {
  it.each(hostile)('--markdown-file with $name: exit 2 naming the reason and the way out', async ({ markdown }) => {
    const env = baseEnv();
    const file = join(env.HOME as string, 'answer.md');
    writeFileSync(file, markdown());
    const result = await runInProcess(['reply', '--markdown-file', file, '--core-client-id', '42', '--dry-run'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cannot write the plain-text form of the Markdown \(--markdown or --markdown-file\): /);
    expect(result.stderr).toMatch(/-t\/--text or --text-file/);
    expect(result.stderr).not.toMatch(/unexpected|Maximum call stack|\n\s+at /);
  });

  it('a payload file whose formattedText is too deep names formattedText', async () => {
    const env = baseEnv();
    const file = join(env.HOME as string, 'answer.json');
    writeFileSync(file, JSON.stringify({ coreClientId: 42, formattedText: '> '.repeat(10_000) }));
    const result = await runInProcess(['reply', '-f', file, '--dry-run'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/the payload's formattedText: nested 10,000 levels deep at line 1, more than 32/);
  });

  it('with the plain text given, the Markdown is sent as written', async () => {
    const env = baseEnv();
    const file = join(env.HOME as string, 'answer.md');
    writeFileSync(file, '> '.repeat(10_000));
    const result = await runInProcess(['reply', '--markdown-file', file, '-t', 'plain', '--core-client-id', '42', '--dry-run'], { env });
    expect(result.code).toBe(0);
  });
});
