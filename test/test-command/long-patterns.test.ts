import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/run.js';
import { platform, reply, testFolder } from './platform.js';

/**
 * A /pattern/ too large for the engine to compile (docs/testing-bots.md, "Matching"). V8 compiles a
 * pattern when it is first used: a 40,000-character one passed the file check, then ended `core test`
 * with exit 1 and no report when it met the bot's answer. Written in the file, it is a file problem
 * (exit 2, before anything runs); made so by a captured value, it fails its step, and the run goes on
 * and writes its reports.
 */

describe('a pattern too large to compile', () => {
  it('written in a test file is refused before anything runs, exit 2, in one short line', async () => {
    const { sb, bot, env } = await platform((message, s) => reply(s, message));
    const folder = testFolder({ 'a.yaml': `steps:\n  - customer: Hi\n  - bot: {text: "/${'a'.repeat(40_000)}/"}\n` });
    const result = await runInProcess(['test', 'a.yaml', '--sandbox', sb.url], { env, cwd: folder });
    expect(result.code).toBe(2);
    const line = result.stderr.split('\n').find((text) => text.includes('a.yaml:3'));
    expect(line).toContain('steps[1].bot.text');
    expect(line).toContain('is not a valid regular expression: Regular expression too large');
    expect(line!.length).toBeLessThan(400);
    expect(bot.requests).toHaveLength(0);
  });

  it('made so by a captured value of 60,000 characters fails its step; the other conversations run and the reports are written', async () => {
    const { sb, env } = await platform((message, s) =>
      reply(s, message, { text: message.text === 'long' ? 'a'.repeat(60_000) : `You said: ${message.text}` }),
    );
    const folder = testFolder({
      'a.yaml': `conversations:
  - name: captures a long value
    steps:
      - customer: long
      - bot: {}
        capture: {value: "/(a+)/"}
      - customer: again
      - bot: {text: "/^\${value}$/"}
  - name: captures into a long pattern
    steps:
      - customer: long
      - bot: {}
        capture: {value: "/(a+)/"}
      - customer: again
      - bot: {}
        capture: {again: "/\${value}(x)/"}
  - name: passes
    steps:
      - customer: Hi
      - bot: {text: "You said: Hi"}
`,
    });
    const result = await runInProcess(
      ['test', 'a.yaml', '--sandbox', sb.url, '--reporter', 'human', '--reporter', 'junit=report.xml', '--reporter', 'json=report.json'],
      { env, cwd: folder },
    );
    expect(result.code).toBe(3);
    expect(result.stdout + result.stderr).toContain('with its values filled in,');
    expect(result.stdout + result.stderr).toContain('Regular expression too large');
    expect(result.stdout + result.stderr).toContain('capture again: with its values filled in,');
    for (const file of ['report.xml', 'report.json']) expect(existsSync(join(folder, file))).toBe(true);
    const json = readFileSync(join(folder, 'report.json'), 'utf8');
    expect(json).toContain('"passes"');
    expect(json).toContain('Regular expression too large');
  });
});
