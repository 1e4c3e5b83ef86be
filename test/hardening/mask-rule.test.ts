import { describe, expect, it } from 'vitest';
import { checkToken } from '../../src/config/token.js';
import { createMask, MIN_MASKED_LENGTH } from '../../src/mask.js';

/**
 * The masking rule itself (src/mask.ts, src/config/token.ts; docs/security.md, "The masking rule"):
 * which values are masked by value, each bound at the limit and one past it, the forms a value is
 * masked in, and JSON kept valid.
 */

describe('which tokens core accepts', () => {
  it.each<[string, string, string | null]>([
    [`${MIN_MASKED_LENGTH} characters: the limit`, 'abcd-123', null],
    [`${MIN_MASKED_LENGTH - 1} characters: one short`, 'abcd-12', 'is shorter than 8 characters'],
    ['spaces around it: trimmed', '  abcd-1234  ', null],
    ['a space inside', 'abcd 1234', 'holds white space'],
    ['a line break at its end', 'abcd-1234\n', 'holds a line break or control character'],
    ['DEL', 'abcd-1234\u007f', 'holds a line break or control character'],
    ['a C1 control', 'abcd-1234\u0085', 'holds a line break or control character'],
    ['a Latin-1 letter', 'abcd-1234é', 'holds a character outside printable ASCII'],
    ['a number', '1234567890', 'is a number'],
    ['a number with an exponent', '1.5e+100', 'is a number'],
    ['" and \\ and JSON punctuation', '"}],{:\\x', null],
    ['every printable ASCII character but space', '!"#$%&\'()*+,-./0-9:;<=>?@A-Z[\\]^_`a-z{|}~', null],
  ])('%s', (_name, raw, problem) => {
    const checked = checkToken(raw);
    if (problem === null) expect(checked).toEqual({ token: raw.trim() });
    else expect('problem' in checked ? checked.problem : '').toContain(problem);
  });

  it('refuses a token that is part of what core prints beside it', () => {
    const printed = ['https://chat.example.com', 'acme-tenant', '/api/v1/inactivity/reasons'];
    for (const token of ['chat.example.com', 'acme-tenant', 'inactivity'])
      expect(checkToken(token, printed)).toEqual({ problem: expect.stringContaining('is part of the base URL') as string });
    expect(checkToken('acme-tenant-token', printed)).toEqual({ token: 'acme-tenant-token' });
  });
});

describe('masking by value', () => {
  const secret = 'se/cr"et\\+key=1';
  const mask = createMask();
  mask.add(`  ${secret}  `);

  it.each<[string, string]>([
    ['as is', `a ${secret} b`],
    ['JSON-escaped', `a ${JSON.stringify(secret)} b`],
    ['JSON-escaped with \\/ for a slash', `a ${JSON.stringify(secret).replace(/\//g, '\\/')} b`],
    ['every character a \\u escape', `a "${[...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}" b`],
    ['percent-encoded', `a ${encodeURIComponent(secret)} b`],
    ['percent-encoded in lower case', `a ${encodeURIComponent(secret).toLowerCase()} b`],
  ])('masks it %s', (_name, text) => {
    expect(mask.redact(text)).toMatch(/^a "?\*{8}"? b$/);
  });

  it('registers nothing that is too short or a number, and says so', () => {
    const other = createMask();
    expect(other.add('short')).toBe(false);
    expect(other.add('12345678')).toBe(false);
    expect(other.add('true')).toBe(false);
    expect(other.redact('short 12345678 true')).toBe('short 12345678 true');
  });

  it('never starts a match inside an escape: \\n followed by the rest of the text is not the secret', () => {
    const other = createMask();
    other.add('nabcdefgh');
    expect(other.redact('"line\\nabcdefgh"')).toBe('"line\\nabcdefgh"');
    expect(other.redact('"a\\\\nabcdefgh"')).toBe('"a\\\\********"');
  });

  it('masks a JSON value by structure: keys and strings, never numbers or booleans, and the result is valid JSON', () => {
    const other = createMask();
    other.add('"}],"ok":true,"x":["');
    const value = { ok: false, n: 91234n, flag: true, ['"}],"ok":true,"x":["']: 'key', list: ['x "}],"ok":true,"x":[" y'] };
    expect(other.redactValue(value)).toEqual({ ok: false, n: 91234n, flag: true, '********': 'key', list: ['x ******** y'] });
  });
});
