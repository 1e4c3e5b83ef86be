import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkToken } from '../../src/config/token.js';
import { compile, createMask, mayHold, MIN_MASKED_LENGTH } from '../../src/mask.js';
import { stringifyJson } from '../../src/payload/index.js';
import { cutText } from '../../src/output/result.js';

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
    ['a key of the JSON result', 'answerId', 'is a key or label that core prints'],
    ['a key of the JSON result, in another case', 'DURATIONMS', 'is a key or label that core prints'],
    ['a word of config show', 'integratorToken', 'is a key or label that core prints'],
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

describe('the quick test before masking (mayHold)', () => {
  const secret = 'se/cr+et=key1';
  /** Each form of a character that masking knows: itself, \u escapes in either case, a % escape, \/ \" \\. */
  const formsOf = (character: string): string[] => {
    const hex = character.charCodeAt(0).toString(16).padStart(4, '0');
    return [
      character,
      `\\u${hex}`,
      `\\u${hex.toUpperCase()}`,
      `%${hex.slice(2).toUpperCase()}`,
      `%${hex.slice(2)}`,
      ...('/"\\'.includes(character) ? [`\\${character}`] : []),
    ];
  };
  // Every character in the same kind of form, or each in its own.
  const sameForm = fc.nat({ max: 4 }).map((kind) => [...secret].map((character) => formsOf(character)[kind]).join(''));
  const mixedForms = fc.tuple(...[...secret].map((character) => fc.constantFrom(...formsOf(character)))).map((forms) => forms.join(''));
  const anyForm = fc.oneof(sameForm, mixedForms);
  const junk = fc.string({ maxLength: 6 });
  // The secret in one form of each character, between other text, whole or with a part cut out.
  const text = fc
    .tuple(junk, anyForm, junk, fc.nat({ max: 20 }), fc.nat({ max: 4 }))
    .map(([before, form, after, at, cut]) => `${before}${form.slice(0, at)}${form.slice(at + cut)}${after}`);

  it('says yes to every text in which the expression finds the secret', () => {
    const pattern = compile([secret]);
    fc.assert(
      fc.property(text, (candidate) => {
        pattern.lastIndex = 0;
        if (pattern.test(candidate)) expect(mayHold(candidate, [secret])).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('says yes to every JSON document that masking by structure would change', () => {
    const mask = createMask();
    mask.add(secret);
    fc.assert(
      fc.property(fc.dictionary(text, fc.oneof(text, fc.array(text, { maxLength: 3 }))), (value) => {
        const plain = stringifyJson(value);
        if (stringifyJson(mask.redactValue(value)) !== plain) expect(mask.mayHold(plain)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('with nothing registered, leaves every text as it is, backslashes and percent signs included', () => {
    const empty = createMask();
    expect(empty.mayHold('a \\n 100% b')).toBe(false);
    expect(empty.redact('a \\n 100% b')).toBe('a \\n 100% b');
  });

  it.each<[string, string, boolean]>([
    ['plain text', 'a line with nothing secret in it', false],
    ['the secret with one character changed', 'a key-that-is-lonG b', false],
    ['a backslash', 'a \\n b', true],
    ['a percent sign', '100% b', true],
    ['the secret as it is', 'a key-that-is-long b', true],
  ])('for %s says %s', (_name, candidate, expected) => {
    const other = createMask();
    other.add('key-that-is-long');
    expect(other.mayHold(candidate)).toBe(expected);
    expect(other.redact(candidate) === candidate).toBe(!expected || candidate.includes('\\') || candidate.includes('%'));
  });
});

describe('a text cut short', () => {
  const mask = createMask();
  mask.add('Sekr3tTok_abc123XYZ');

  it.each<[string, string, string]>([
    ['ends with the first 18 characters of the secret', 'xx Sekr3tTok_abc123XY', 'xx ********'],
    ['ends with its first 3 characters: the shortest start masked', 'xx Sek', 'xx ********'],
    ['ends with its first 2 characters: left', 'xx Se', 'xx Se'],
    ['ends with the start of its lower-case form', 'xx sekr3ttok', 'xx ********'],
    ['holds the whole secret, then more', 'xx Sekr3tTok_abc123XYZ yy', 'xx ******** yy'],
    // Text masks no secret after a lone backslash (it may end an escape such as \n); the end of a cut text is masked whole.
    ['ends with the whole secret after a lone backslash', 'xx \\Sekr3tTok_abc123XYZ', 'xx \\********'],
    ['ends with its first 18 characters after a lone backslash', 'xx \\Sekr3tTok_abc123XY', 'xx \\********'],
  ])('%s', (_name, text, masked) => {
    expect(mask.redactCutEnd(text)).toBe(masked);
  });

  it.each([
    ['the later-registered secret', ['abcZZZZZ-one', 'abcabc12-two']],
    ['the earlier-registered secret', ['abcabc12-two', 'abcZZZZZ-one']],
  ])('masks from the longest start at the end when two secrets begin there, %s being the longer', (_name, secrets) => {
    const two = createMask();
    for (const secret of secrets) two.add(secret);
    // "abcabc" starts abcabc12-two; its last "abc" starts abcZZZZZ-one: the longer start is masked.
    expect(two.redactCutEnd('xx abcabc')).toBe('xx ********');
  });

  it.each(['xx Sek', 'xx Stryker was here', 'xx ab'])('masks nothing at the end of %j when no secret is registered', (text) => {
    expect(createMask().redactCutEnd(text)).toBe(text);
  });

  it.each<[number, string]>([
    [5, 'ab… [cut]'],
    [3, 'ab… [cut]'],
    [2, 'ab… [cut]'],
    [10, 'ab********… [cut]'],
  ])('cut at %s bytes, never splits a mask: %s', (limit, cut) => {
    expect(cutText('ab********cd', limit)).toBe(cut);
  });
});

describe('hex forms', () => {
  it.each<[string, string, boolean]>([
    ['^^^^^^^^: hex 5e5e5e5e5e5e5e5e, digits and e', '^^^^^^^^', true],
    ['^^^^^^^^: its hex in upper case', '^^^^^^^^', true],
    ['12345678-ab: hex with letters', '12345678-ab', true],
    ['@@@@@@@@: hex 4040404040404040, digits only, left out', '@@@@@@@@', false],
  ])('%s: masked %s', (name, secret, masked) => {
    const mask = createMask();
    mask.add(secret);
    const hex = Buffer.from(secret).toString('hex');
    const form = name.includes('upper case') ? hex.toUpperCase() : hex;
    expect(mask.redact(`a ${form} b`)).toBe(masked ? 'a ******** b' : `a ${form} b`);
  });
});
