import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { runInProcess } from '../helpers/run.js';
import { botProcess } from './bot-process.js';
import { testFolder } from './platform.js';

/**
 * `core test` in depth against a bot process of its own (test/test-command/fixtures/bot.mjs): values
 * the bot makes at run time kept with capture, examples tables, within, --repeat against a random
 * answer, several reports from one run, and coverage.
 */

async function run(files: Record<string, string>, extra: string[] = []) {
  const { sb, env } = await botProcess();
  const folder = testFolder(files);
  const names = Object.keys(files).filter((name) => name.endsWith('.yaml'));
  const result = await runInProcess(['test', ...names, '--sandbox', sb.url, ...extra], { env, cwd: folder });
  return { ...result, folder };
}

type JsonReport = {
  ok: boolean;
  summary: Record<string, number>;
  files: { conversations: Record<string, unknown>[] }[];
  coverage: { exercised: Record<string, number>; notExercised: string[] } | null;
};
const json = (text: string) => JSON.parse(text) as JsonReport;

describe('capture', () => {
  it('keeps a value the bot made at run time and uses it in later steps: customer text, expected strings, patterns', async () => {
    const result = await run(
      {
        'ticket.yaml': `name: a ticket, then its status
steps:
  - customer: open a ticket
  - bot:
      text: /^Ticket T-\\d+ is open\\.$/
    capture: {ticket: "/(T-\\\\d+)/"}
  - customer: status of \${ticket}
  - bot: {text: "\${ticket} is in progress."}
  - customer: status of \${ticket}
  - bot: {text: "/^\${ticket} is/"}
`,
      },
      ['--reporter', 'json'],
    );
    expect(result.stderr).toContain('1 passed, 0 failed');
    expect(result.code).toBe(0);
  });

  it('fails the step when the capture does not match, naming NAME, the pattern and the text', async () => {
    const result = await run({
      'ticket.yaml': 'steps:\n  - customer: open a ticket\n  - bot: {}\n    capture: {order: "/order (\\\\d+)/"}\n',
    });
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(
      /step 2, line 3 \(bot\), conversation s-\S+\n {2}capture order: \/order \(\\d\+\)\/ does not match the answer's text "Ticket T-\d+ is open\."/,
    );
  });

  it('matches a captured value literally inside a pattern, and $${ as a literal ${', async () => {
    const result = await run({
      'literal.yaml': `steps:
  - customer: "a.c"
  - bot: {}
    capture: {said: "/: (.*)$/"}
  - customer: "abc"
  - bot: {text: "/\${said}/"}
  - customer: "cost $\${said}"
  - bot: {text: "You said: cost $\${said}"}
`,
    });
    // "a.c" as a pattern would match "abc"; matched literally, it does not.
    expect(result.stdout).toContain('step 4, line 6 (bot)');
    expect(result.stdout).toContain('      - expected  /a\\.c/');
    expect(result.code).toBe(3);
  });
});

describe('examples', () => {
  it('runs the conversation once per row, each row its own test case, named by its values', async () => {
    const result = await run(
      {
        'echo.yaml': `name: echo \${word}
examples:
  - {word: alpha}
  - {word: beta}
steps:
  - customer: \${word}
  - bot: {text: "You said: \${word}"}
`,
        'same.yaml': `name: echo
examples:
  - {word: gamma, n: 1}
  - {word: delta, n: 2}
steps:
  - customer: \${word} \${n}
  - bot: {text: "You said: \${word} 2"}
`,
      },
      ['--reporter', 'json'],
    );
    const report = json(result.stdout);
    expect(report.files.map((file) => file.conversations.map((c) => [c.name, c.row, c.outcome]))).toEqual([
      [
        ['echo alpha', 0, 'passed'],
        ['echo beta', 1, 'passed'],
      ],
      [
        ['echo (word=gamma, n=1)', 0, 'failed'],
        ['echo (word=delta, n=2)', 1, 'passed'],
      ],
    ]);
    expect(result.code).toBe(3);
  });
});

describe('within', () => {
  it('passes an answer in time and fails a late one with the time it took, on the sandbox clock', async () => {
    const result = await run(
      {
        'slow.yaml': `conversations:
  - name: in time
    steps:
      - customer: slow 10
      - bot: {text: slept 10 ms}
        within: 5s
  - name: too late
    steps:
      - customer: slow 400
      - bot: {text: slept 400 ms}
        within: 100ms
`,
      },
      ['--reporter', 'json'],
    );
    const [inTime, late] = json(result.stdout).files[0]!.conversations;
    expect(inTime).toMatchObject({ outcome: 'passed' });
    expect(late).toMatchObject({ outcome: 'failed' });
    const message = (late!.failure as { message: string }).message;
    expect(message).toMatch(/^too late: answered in (\d+(?:\.\d+)?)(ms|s), within 100ms expected$/);
    // The bot slept 400 ms: the time is the bot's, question recorded to answer recorded.
    const [, amount, unit] = /in (\d+(?:\.\d+)?)(ms|s),/.exec(message)!;
    expect(Number(amount) * (unit === 's' ? 1000 : 1)).toBeGreaterThanOrEqual(400);
    expect(result.code).toBe(3);
  });
});

describe('--repeat', () => {
  it('runs every conversation N times and marks one with a random answer flaky, with latency percentiles', async () => {
    const result = await run(
      {
        'flip.yaml': 'name: flip\nsteps:\n  - customer: flip\n  - bot: {text: heads}\n',
        'echo.yaml': 'name: echo\nsteps:\n  - customer: hi\n  - bot: {text: "You said: hi"}\n',
      },
      ['--repeat', '40', '--concurrency', '8', '--reporter', 'json'],
    );
    const [flip, echo] = json(result.stdout).files.map((file) => file.conversations[0]!);
    expect(flip).toMatchObject({ runs: 40, flaky: true, outcome: 'failed' });
    expect(flip!.failedRuns).toBeGreaterThan(0);
    expect(flip!.failedRuns).toBeLessThan(40);
    expect(echo).toMatchObject({ runs: 40, failedRuns: 0, flaky: false, outcome: 'passed' });
    const latency = echo!.latencyMs as { p50: number; p95: number; max: number };
    expect(latency.p50).toBeLessThanOrEqual(latency.p95);
    expect(latency.p95).toBeLessThanOrEqual(latency.max);
    expect(result.stderr).toMatch(/✗ flip flaky \(flip\.yaml:1, 40 runs, \d+ failed \(flaky\)/);
    expect(result.stderr).toMatch(/run \d+ of 40, step 2, line 4 \(bot\)/);
    expect(result.stderr).toMatch(/1 passed, 1 failed \(1 flaky\) \(2 conversations in 2 files, 40 runs each/);
    expect(result.code).toBe(3);
  });

  it('gives runs: 1 and the latency of the answers without --repeat', async () => {
    const result = await run({ 'echo.yaml': 'steps:\n  - customer: hi\n  - bot: {text: "You said: hi"}\n' }, ['--reporter', 'json']);
    const [echo] = json(result.stdout).files[0]!.conversations;
    expect(echo).toMatchObject({ runs: 1, failedRuns: 0, flaky: false });
    expect(echo!.latencyMs).toMatchObject({ p50: expect.any(Number), p95: expect.any(Number), max: expect.any(Number) });
    expect(result.code).toBe(0);
  });
});

describe('several reports from one run', () => {
  it('writes JUnit, TAP and JSON from one run, the repeat runs in the JUnit properties and system-out', async () => {
    const result = await run({ 'flip.yaml': 'name: flip\nsteps:\n  - customer: flip\n  - bot: {text: heads}\n' }, [
      '--repeat',
      '30',
      '--reporter',
      'junit=report.xml',
      '--reporter',
      'tap=report.tap',
      '--reporter',
      'json=report.json',
    ]);
    expect(result.code).toBe(3);
    // No report on stdout: the human lines and summary go to stderr, as with --output.
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^✗ flip flaky/m);
    const xml = readFileSync(join(result.folder, 'report.xml'), 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const testcase = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml).testsuites.testsuite.testcase;
    const properties = Object.fromEntries(
      (testcase.properties.property as { name: string; value: string }[]).map((p) => [p.name, p.value]),
    );
    expect(properties).toMatchObject({ runs: '30', flaky: 'true', 'latency.p50': expect.stringMatching(/^\d+$/) });
    expect(testcase.failure.message).toMatch(/^run \d+ of 30, step 2/);
    expect(testcase['system-out']).toMatch(/^30 runs, \d+ failed \(flaky\), p50 /);

    const tap = readFileSync(join(result.folder, 'report.tap'), 'utf8');
    expect(tap).toMatch(/^TAP version 14\n1\.\.1\nnot ok 1 - flip\.yaml: flip\n {2}---\n/);
    const diagnostic = tap.split('  ---\n')[1]!.split('  ...')[0]!;
    expect(diagnostic).not.toMatch(/[&*]a\d/);
    expect(YAML.parse(diagnostic)).toMatchObject({ runs: 30, flaky: true, latency_ms: { p50: expect.any(Number) } });

    expect(json(readFileSync(join(result.folder, 'report.json'), 'utf8')).files[0]!.conversations[0]).toMatchObject({
      runs: 30,
      flaky: true,
    });
  });
});

describe('--coverage', () => {
  it('counts what happened in the platform, and lists what no run exercised', async () => {
    const result = await run(
      {
        'web.yaml': 'steps:\n  - customer: hi\n  - bot: {}\n',
        'im.yaml': 'channel: IM\nsteps:\n  - customer: hi\n  - bot: {}\n  - customer: again\n  - bot: {}\n',
      },
      ['--coverage', '--reporter', 'json'],
    );
    const { coverage } = json(result.stdout);
    expect(coverage).toEqual({
      exercised: { WEB: 1, IM: 1, SUCCESS: 3 },
      notExercised: [
        'EMAIL',
        'UNCLEAR_QUESTION',
        'SWITCH_TO_HUMAN',
        'formattedText',
        'quickReplies',
        'quickRepliesHeaderFooter',
        'messageListPicker',
        'attachments',
        'settings.blockInput',
        'settings.masked',
        'userIds',
        'skillIds',
        'unitIds',
        'press',
        'pick',
        'secondAnswer',
        'duplicateAnswerId',
        'refusal',
        'routedByUserIds',
        'routedBySkillIds',
        'routedByUnitIds',
        'routedToAnyAgent',
        'queuedNoMatch',
        'queuedAwayOrFull',
        'routedFromQueue',
      ],
    });
    expect(result.stderr).toMatch(
      /\nnot exercised: EMAIL, UNCLEAR_QUESTION, SWITCH_TO_HUMAN, formattedText, .*, refusal, routedByUserIds, .*, routedFromQueue\n$/,
    );
  });

  it('has coverage: null without --coverage', async () => {
    const result = await run({ 'web.yaml': 'steps:\n  - customer: hi\n  - bot: {}\n' }, ['--reporter', 'json']);
    expect(json(result.stdout).coverage).toBeNull();
  });
});
