import { XMLValidator } from 'fast-xml-parser';
import { Parser as TapParser } from 'tap-parser';
import { describe, expect, it } from 'vitest';
import { makeStyle } from '../../src/output/style.js';
import type { BatteryReport, CheckResult } from '../../src/testing/check-bot/battery.js';
import { showValue } from '../../src/testing/report.js';
import { renderCheckJson, renderCheckJunit, renderCheckTap, renderTable, type ReportContext } from '../../src/testing/check-bot/report.js';

/** The four renderings of one report (docs/check-bot.md, "Reports"), from data: no bot, no sandbox. */

const result = (id: CheckResult['id'], status: 'pass' | 'fail', message: string): CheckResult => ({
  id,
  status,
  message,
  fix: status === 'fail' ? `the fix of ${id}` : null,
  sends: `what ${id} sends`,
  passes: `when ${id} passes`,
  sessionId: `s-${id.length}`,
  durationMs: 12,
});

const report = (checks: CheckResult[], unreachable: BatteryReport['unreachable'] = null): BatteryReport => ({
  startedAt: '2026-11-25T10:00:00.000Z',
  durationMs: 10_259,
  tenant: 'sandbox',
  duplicates: 'soft',
  timeoutMs: 10_000,
  checks,
  passed: checks.filter((c) => c.status === 'pass').length,
  failed: checks.filter((c) => c.status === 'fail').length,
  unreachable,
});

const context: ReportContext = { sandboxUrl: 'http://127.0.0.1:8080', botUrl: 'http://127.0.0.1:3000/webhook', sandboxKept: false };
const hostile = 'the bot answered 400: "<b>&nope</b>"\u0007 # not a comment';
const mixed = report([result('answers', 'pass', 'answered'), result('signature.wrong-secret', 'fail', hostile)]);
const unreachable = report([result('answers', 'fail', 'x')], {
  kind: 'bot',
  message: 'the bot could not be reached: every delivery failed to connect (ECONNREFUSED)',
});
const sandboxGone = report([result('answers', 'fail', 'x')], {
  kind: 'sandbox',
  message: 'no answer from the sandbox at http://127.0.0.1:8080: connect ECONNREFUSED 127.0.0.1:8080',
});

describe('the table', () => {
  it('lines up check, result and what happened, with the fix under a failure', () => {
    expect(renderTable(mixed, context, makeStyle(false))).toBe(
      [
        'check                   result  what happened',
        'answers                 pass    answered',
        `signature.wrong-secret  FAIL    ${hostile.replace('\u0007', '\\u0007')}`,
        '                                fix: the fix of signature.wrong-secret',
        '',
        '1 passed, 1 failed (2 checks of the bot at http://127.0.0.1:3000/webhook, 10.259s)',
        '',
      ].join('\n'),
    );
  });

  it.each([
    ['a line break and a coloured pass row', '\nreplay                  \u001b[32mpass\u001b[39m    not answered'],
    ['a carriage return over the FAIL', '\r' + 'answers                 pass  '],
    ['C1 controls and bidi overrides', '\u009b32m pass \u202e ssap'],
  ])('a bot value holding %s cannot draw a row of its own: one line per check, every control escaped', (_, forged) => {
    const forgedReport = report([result('answers', 'fail', `answered (answerId ${forged})`)]);
    const table = renderTable(forgedReport, context, makeStyle(true));
    const lines = table.split('\n');
    // The header, the check, its fix, a blank line, the summary, and the last line break.
    expect(lines).toHaveLength(6);
    expect(lines[1]).toContain('answerId \\');
    // eslint-disable-next-line no-control-regex
    expect(lines[1]!.replace(/\u001b\[(?:31|39)m/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    expect(table).not.toContain('\r');
  });

  it("names the running sandbox where the checks' conversations stay", () => {
    expect(renderTable(mixed, { ...context, sandboxKept: true }, makeStyle(false))).toMatch(
      /10\.259s\); each check's conversation is in the sandbox at http:\/\/127\.0\.0\.1:8080\n$/,
    );
  });

  it('is one error line when the bot could not be reached', () => {
    expect(renderTable(unreachable, context, makeStyle(false))).toBe(`error: ${unreachable.unreachable!.message}\n`);
  });
});

describe('JUnit XML', () => {
  it('escapes what the bot sent, and counts the failures', () => {
    const xml = renderCheckJunit(mixed);
    expect(xml).toContain('<testsuites name="core check-bot" tests="2" failures="1" errors="0" skipped="0" time="10.259"');
    expect(xml).toContain('<testcase name="answers" classname="core check-bot" time="0.012"/>');
    expect(xml).toContain(
      '<failure message="the bot answered 400: &quot;&lt;b&gt;&amp;nope&lt;/b&gt;&quot;\ufffd # not a comment" type="CheckFailure">',
    );
    expect(xml).toContain('fix: the fix of signature.wrong-secret</failure>');
    expect(xml).toContain('<system-out>sandbox conversation s-22</system-out>');
    expect(xml).not.toContain('\u0007');
  });

  it('makes every check an error when the bot could not be reached', () => {
    const xml = renderCheckJunit(unreachable);
    expect(xml).toContain('tests="1" failures="0" errors="1"');
    expect(xml).toContain(
      '<error message="the bot could not be reached: every delivery failed to connect (ECONNREFUSED)" type="BotUnreachable"/>',
    );
  });

  it('makes every check an error of the sandbox when the sandbox could not be reached', () => {
    const xml = renderCheckJunit(sandboxGone);
    expect(xml).toContain('tests="1" failures="0" errors="1"');
    expect(xml).toContain(
      '<error message="no answer from the sandbox at http://127.0.0.1:8080: connect ECONNREFUSED 127.0.0.1:8080" type="SandboxUnreachable"/>',
    );
  });
});

describe('TAP 14', () => {
  it('has a test point per check and the failure in YAML', async () => {
    const tap = await renderCheckTap(mixed);
    expect(tap.split('\n').slice(0, 5)).toEqual(['TAP version 14', '1..2', 'ok 1 - answers', 'not ok 2 - signature.wrong-secret', '  ---']);
    expect(tap).toContain('  fix: the fix of signature.wrong-secret\n');
    expect(tap).toContain('  conversation: s-22\n');
    expect(tap.endsWith('  ...\n')).toBe(true);
  });

  it('bails out when the bot could not be reached', async () => {
    expect(await renderCheckTap(unreachable)).toBe(`TAP version 14\nBail out! ${unreachable.unreachable!.message}\n`);
  });
});

describe('JSON', () => {
  it('has the checks, the summary and no error', () => {
    const json = JSON.parse(renderCheckJson(mixed, context));
    expect(json).toMatchObject({
      ok: false,
      botUrl: context.botUrl,
      sandboxUrl: context.sandboxUrl,
      timeoutMs: 10_000,
      summary: { checks: 2, passed: 1, failed: 1 },
      error: null,
    });
    expect(json.checks[1]).toEqual({
      id: 'signature.wrong-secret',
      status: 'fail',
      message: hostile,
      fix: 'the fix of signature.wrong-secret',
      sends: 'what signature.wrong-secret sends',
      passes: 'when signature.wrong-secret passes',
      sessionId: 's-22',
      durationMs: 12,
    });
  });

  it('has the error when the bot could not be reached', () => {
    expect(JSON.parse(renderCheckJson(unreachable, context))).toMatchObject({
      ok: false,
      error: { code: 'EBOTUNREACHABLE', message: unreachable.unreachable!.message, botUrl: context.botUrl },
    });
  });

  it('has the error, naming the sandbox, when the sandbox could not be reached', () => {
    expect(JSON.parse(renderCheckJson(sandboxGone, context)).error).toEqual({
      code: 'ESANDBOXUNREACHABLE',
      message: sandboxGone.unreachable!.message,
      sandboxUrl: context.sandboxUrl,
    });
  });
});

describe("core test's human report shows a bot's text written like a pattern", () => {
  it.each([
    ['/a/', '/a/'],
    ['/\u001b[32m✓ passes\u001b[39m/', '/\\u001b[32m✓ passes\\u001b[39m/'],
    ['/a\nb/', '/a\\nb/'],
    ['/\u009b2J/', '/\\u009b2J/'],
  ])('%j as %s: as written, every control character escaped', (value, shown) => {
    expect(showValue(value)).toBe(shown);
  });
});

describe('a fuzzed failure in every reporter', () => {
  const command = "core check-bot --fuzz-replay 7:12:0:3 --port 8080 --bot-url http://127.0.0.1:3000/webhook --only 'fuzz.server-error'";
  // A delivery whose text holds what XML and a terminal cannot carry as it is.
  const delivery = '{"type":"MESSAGE","message":{"text":"\\u0000 \uffff \u202e <b>&"}}';
  const fuzzed = {
    ...result('fuzz.server-error' as CheckResult['id'], 'fail', 'message 1: the bot answered 500'),
    replay: '7:12:0:3',
    command,
    delivery,
  };
  const fuzzReport = report([fuzzed]);

  it('is one case with the replay command and the delivery, in JSON', () => {
    const json = JSON.parse(renderCheckJson(fuzzReport, context)) as { checks: Record<string, unknown>[] };
    expect(json.checks).toHaveLength(1);
    expect(json.checks[0]).toMatchObject({ id: 'fuzz.server-error', status: 'fail', replay: '7:12:0:3', command, delivery });
  });

  it('is one test case with the replay command in its failure, in JUnit XML that parses', () => {
    const xml = renderCheckJunit(fuzzReport);
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml.match(/<testcase /g)).toHaveLength(1);
    expect(xml).toContain(`replay: ${command.replace(/&/g, '&amp;')}`);
    expect(xml).toContain('delivery: {"type":"MESSAGE","message":{"text":"\\u0000 \ufffd \u202e &lt;b&gt;&amp;"}}');
  });

  it('is one test point with the replay command in its YAML block, in TAP', async () => {
    const tap = await renderCheckTap(fuzzReport);
    const points: { ok: boolean; diag?: Record<string, unknown> }[] = [];
    const parser = new TapParser({ strict: true });
    parser.on('assert', (point: { ok: boolean; diag?: Record<string, unknown> }) => points.push(point));
    parser.end(tap);
    expect(points).toHaveLength(1);
    expect(points[0]!.ok).toBe(false);
    expect(points[0]!.diag).toMatchObject({ replay: command, delivery });
  });

  it('has the replay command and the delivery under the failure, in the table', () => {
    const table = renderTable(fuzzReport, context, makeStyle(false));
    expect(table).toContain(`replay: ${command}`);
    expect(table).toMatch(/delivery: \{"type":"MESSAGE".*\}/);
    expect(table).not.toContain('\u202e');
  });
});
