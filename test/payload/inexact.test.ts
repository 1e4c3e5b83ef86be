import { describe, expect, it } from 'vitest';
import { InexactNumber, readNumber, writesExactly } from '../../src/payload/inexact.js';
import { parseJson, stringifyJson } from '../../src/payload/json.js';
import { validateGreeting } from '../../src/payload/greeting.js';
import { validateReply } from '../../src/payload/reply.js';
import { parseText } from '../../src/input/files.js';

/**
 * An identifier whose written digits do not survive (docs/payloads.md, "Identifiers"): written with a
 * fraction or an exponent, it reads as another integer (`1.9999999999999999` as 2). It is refused as
 * one past 2^53 is, wherever identifiers are read: payload files (JSON and YAML), test files and the
 * sandbox's API (test/testing/load.test.ts, test/sandbox/inexact.test.ts); a flag takes plain digits only.
 */

describe('whether a number literal is exactly the integer it reads as', () => {
  it.each([
    ['5001.0', 5001, true],
    ['5.001e3', 5001, true],
    ['5001e0', 5001, true],
    ['0.0', 0, true],
    ['-0.0', -0, true],
    ['-12.000', -12, true],
    ['1E2', 100, true],
    ['00012.500e1', 125, true],
    ['9.2e18', 9.2e18, true],
    ['1.9999999999999999', 2, false],
    ['5001.0000000000000001', 5001, false],
    ['1e-400', 0, false],
    ['-1.00000000000000001', -1, false],
    ['9007199254740993.0', 9007199254740992, false],
    ['123456789012345678901234567890e-10', 12345678901234567000, false],
  ])('%s reads as %d: exact %s', (literal, read, exact) => {
    expect(Number(literal)).toBe(read);
    expect(writesExactly(literal, read)).toBe(exact);
    const value = readNumber(literal);
    if (exact) expect(value).toBe(read);
    else {
      expect(value).toBeInstanceOf(InexactNumber);
      expect((value as InexactNumber).value).toBe(literal);
      expect((value as InexactNumber).read).toBe(read);
    }
  });

  it.each(['1.5', '0.1', '1e-3', '3.141592653589793'])('%s, which is no integer once read, stays a number', (literal) => {
    expect(readNumber(literal)).toBe(Number(literal));
  });
});

describe('a payload file whose identifier is written with digits that do not survive', () => {
  const refused = (literal: string) =>
    `expected an integer from 0 to 9,223,372,036,854,775,807, got ${literal} (which reads as ${Number(literal)}: a number keeps 15 to 17 digits); write the identifier in plain digits`;

  const fields: Array<[string, (id: string) => string, string]> = [
    ['coreClientId', (id) => `{"text": "Hi", "coreClientId": ${id}}`, 'coreClientId'],
    ['questionId', (id) => `{"text": "Hi", "questionId": ${id}}`, 'questionId'],
    ['questionIndex', (id) => `{"text": "Hi", "sessionId": "s", "questionIndex": ${id}}`, 'questionIndex'],
    ['userIds', (id) => `{"text": "Hi", "coreClientId": 1, "code": "SWITCH_TO_HUMAN", "userIds": [7, ${id}]}`, 'userIds[1]'],
  ];

  describe.each(['json', 'yaml'] as const)('read as %s', (format) => {
    it.each(
      fields.flatMap(([field, body, path]) =>
        ['1.9999999999999999', '5001.0000000000000001', '1e-400'].map((id) => [field, id, body, path] as const),
      ),
    )('%s: %s is refused, naming what was written', async (_field, id, body, path) => {
      // YAML reads JSON too: the same text through the YAML reader.
      const parsed = await parseText(body(id), 'answer.json', format);
      const result = validateReply(parsed);
      expect(result.ok).toBe(false);
      expect(result.ok ? [] : result.problems).toContainEqual({ path, message: refused(id) });
    });

    it.each(['5001.0', '5.001e3', '5001'])('%s, written exactly, is read as 5001 and sent in plain digits', async (id) => {
      const parsed = await parseText(`{"text": "Hi", "coreClientId": ${id}}`, 'answer.json', format);
      const result = validateReply(parsed);
      expect(result.ok && result.value.coreClientId).toBe(5001n);
    });
  });

  it('is refused in a YAML file written as YAML, and in a greeting', async () => {
    const parsed = await parseText('text: Hi\ncoreClientId: 1.9999999999999999\n', 'greeting.yaml', 'yaml');
    const result = validateGreeting(parsed);
    expect(result.ok ? [] : result.problems).toContainEqual({ path: 'coreClientId', message: refused('1.9999999999999999') });
  });

  it('is written back as written by the lossless writer, so a refused body shows what was sent', () => {
    const body = parseJson('{"coreClientId": 1.9999999999999999, "questionId": 5001.0000000000000001, "text": "Hi"}', { inexact: true });
    expect(stringifyJson(body)).toBe('{"coreClientId":1.9999999999999999,"questionId":5001.0000000000000001,"text":"Hi"}');
  });

  it('is read as the number it reads as without { inexact }, as before, by the readers of what holds no identifier', () => {
    expect(parseJson('{"a": 1.9999999999999999}')).toEqual({ a: 2 });
  });
});

describe('a value echoed in a message', () => {
  it('is cut when it is a number of a million digits, naming how many', () => {
    const digits = '9'.repeat(1_000_000);
    const result = validateReply(parseJson(`{"text": "Hi", "coreClientId": ${digits}}`));
    const message = result.ok ? '' : result.problems[0]!.message;
    expect(message).toBe(`expected an integer from 0 to 9,223,372,036,854,775,807, got ${'9'.repeat(57)}… (1,000,000 digits)`);
  });
});
