import { describe, expect, it } from 'vitest';
import {
  createMask,
  isMaskedText,
  isShownRequestHeader,
  MASK,
  maskedHeaderValue,
  maskedText,
  maskProblem,
  secretForms,
  SHOWN_HEADER_NAMES,
} from '../../src/mask.js';

/**
 * The masking rule (src/mask.ts; docs/security.md, "The masking rule") at the level of its parts:
 * which values are distinctive, the forms of a secret a service may echo, overlapping secrets, and
 * JSON values of every kind. test/hardening/mask-rule.test.ts holds the bounds and the properties,
 * test/hardening/masking.test.ts the same token table through the built binary.
 */

/** The tokens of test/hardening/masking.test.ts: spaces around, JSON's and a URL's special characters, JSON syntax. */
const tokens: Array<[string, string]> = [
  ['with spaces around it', '   spaced-token-8f2a1c   '],
  ['holding " and \\', 'q"uo\\te-token-77a'],
  ['holding / + and =', 'b64/tok+en/9x=='],
  ['shaped to break JSON', '"}],"ok":true,"x":["'],
  ['in mixed case', 'MixedCase-Token-9Z'],
  ['whose base64 holds + and /', 'tok>>>en???key-1'],
];

const base64 = (text: string) => Buffer.from(text).toString('base64');
const hex = (text: string) => Buffer.from(text).toString('hex');

/** What a service may echo of a token, whole, as a line of text would carry it. */
const echoes: Array<[string, (token: string) => string]> = [
  ['as is', (token) => token],
  ['in upper case', (token) => token.toUpperCase()],
  ['in lower case', (token) => token.toLowerCase()],
  ['in hex', hex],
  ['in upper-case hex', (token) => hex(token).toUpperCase()],
  ['in upper case, JSON-escaped', (token) => JSON.stringify(token.toUpperCase()).slice(1, -1)],
  ['in hex, percent-encoded', (token) => encodeURIComponent(hex(token))],
];

/**
 * A mask holding `secrets`, made inside each test: a mask made while the tests are collected would
 * turn a broken createMask into a file with no test, which mutation testing counts as passing.
 */
function maskOf(...secrets: string[]) {
  const mask = createMask();
  for (const secret of secrets) mask.add(secret);
  return mask;
}

describe('the forms of a token masked in text', () => {
  describe.each(tokens)('a token %s', (_name, raw) => {
    const token = raw.trim();

    it.each(echoes)('is masked %s', (_form, form) => {
      expect(maskOf(raw).redact(`a ${form(token)} b`)).toBe(`a ${MASK} b`);
    });

    it.each([0, 1, 2])('is masked in base64 inside a longer base64 text, %d bytes into it', (shift) => {
      // Basic credentials: base64 of user:token, the token starting at any of the three alignments.
      for (const encode of [base64, (text: string) => Buffer.from(text).toString('base64url')]) {
        const encoded = encode(`${'u'.repeat(shift)}${token}:rest`);
        const masked = maskOf(raw).redact(`Basic ${encoded}`);
        expect(masked).toContain(MASK);
        // What is left around the mask is the few characters that also hold bits of the text around the token.
        expect(masked.length - `Basic ${MASK}`.length).toBeLessThanOrEqual(encoded.length - Math.floor((token.length * 4) / 3) + 4);
        expect(Buffer.from(masked.slice('Basic '.length).replace(MASK, ''), 'base64').toString('latin1')).not.toContain(token.slice(0, 3));
      }
    });

    it('is masked in base64 on its own, all but the last character and the padding', () => {
      const masked = maskOf(raw).redact(`token=${base64(token)}`);
      expect(masked).toMatch(new RegExp(`^token=\\*{8}[A-Za-z0-9+/]?=*$`));
    });

    it('leaves the mask in the same place in a JSON document, which stays valid', () => {
      const document = maskOf(raw).redactValue({ echoed: { upper: token.toUpperCase(), hex: hex(token), base64: base64(token) } });
      expect(JSON.parse(JSON.stringify(document))).toEqual(document);
      expect(JSON.stringify(document)).not.toContain(token.toUpperCase());
      expect(JSON.stringify(document)).not.toContain(hex(token));
    });
  });

  it.each<[string, string]>([
    ['a length that is a multiple of three: wholly', 'abcdefgh9'],
    ['any other length: all but its last character', 'abcdefgh'],
  ])('masks a base64 form on its own of %s', (_name, token) => {
    const encoded = base64(token);
    const kept = token.length % 3 === 0 ? '' : encoded.replace(/=+$/, '').slice(-1) + encoded.match(/=*$/)![0];
    expect(maskOf(token).redact(`token=${encoded}`)).toBe(`token=${MASK}${kept}`);
  });

  it('leaves out a hex form made only of digits: masking it would mask numbers', () => {
    expect(secretForms('1234567a')).not.toContain('3132333435363761');
    // Its bytes' hex, 2121212121212121, is digits alone: no hex form at all.
    expect(secretForms('!!!!!!!!')).toEqual(['!!!!!!!!', 'ISEhISEhIS', 'EhISEhISEh', 'hISEhISEhI']);
    // A form that reads as a number is left out: the base64 of {m=xM;xO4 is e209eE07eE80.
    expect(secretForms('{m=xM;xO4')).not.toContain('e209eE07eE80');
    const numeric = createMask();
    numeric.add('{m=xM;xO4');
    expect(numeric.redact('1e209eE07eE80 is a number')).toBe('1e209eE07eE80 is a number');
    expect(maskOf('1234567a').redact('id 3132333435363761')).toBe('id 3132333435363761');
  });

  it('keeps the forms of one value distinct and each distinctive', () => {
    const forms = secretForms('spaced-token-8f2a1c');
    expect(new Set(forms).size).toBe(forms.length);
    for (const form of forms) expect(maskProblem(form)).toBeUndefined();
    expect(forms).toEqual(
      expect.arrayContaining([
        'spaced-token-8f2a1c',
        'SPACED-TOKEN-8F2A1C',
        hex('spaced-token-8f2a1c'),
        base64('spaced-token-8f2a1c').replace(/=+$/, '').slice(0, -1),
      ]),
    );
  });

  it('does not mask text that only looks like a form of the token', () => {
    const mask = maskOf('spaced-token-8f2a1c');
    for (const text of ['spaced-token-8f2a1d', 'SPACED-TOKEN-8F2A1D', hex('spaced-token-8f2a1d'), 'Spaced-Token-8f2a1c'])
      expect(mask.redact(`a ${text} b`)).toBe(`a ${text} b`);
  });
});

/**
 * A header value may hold Latin-1 characters (U+0080 to U+00FF; src/config/schema.ts), and is sent as its Latin-1
 * bytes, one a character: a service may echo those bytes encoded, or the value percent-encoded as UTF-8 or as
 * Latin-1 (`%E4` for ä, as a form or `escape` writes it).
 */
describe('a secret with Latin-1 characters, as a header value is sent', () => {
  const secret = 'pässwörd';
  const latin1 = Buffer.from(secret, 'latin1');

  it.each<[string, string]>([
    ['percent-encoded as UTF-8', encodeURIComponent(secret)],
    ['percent-encoded as UTF-8, in lower case', encodeURIComponent(secret).toLowerCase()],
    ['percent-encoded as Latin-1', 'p%E4ssw%F6rd'],
    ['percent-encoded as Latin-1, in lower case', 'p%e4ssw%f6rd'],
    ['with only its first Latin-1 character percent-encoded', 'p%E4sswörd'],
    ['in hex of its Latin-1 bytes', latin1.toString('hex')],
    ['in upper-case hex of its Latin-1 bytes', latin1.toString('hex').toUpperCase()],
    ['in hex of its UTF-8 bytes', hex(secret)],
    ['JSON-escaped', 'p\\u00e4ssw\\u00f6rd'],
  ])('is masked %s', (_form, form) => {
    expect(maskOf(secret).redact(`a ${form} b`)).toBe(`a ${MASK} b`);
  });

  it.each<[string, Buffer]>([
    ['its Latin-1 bytes', latin1],
    ['its UTF-8 bytes', Buffer.from(secret)],
  ])('is masked in base64 of %s, on its own and inside a longer base64 text at each alignment', (_name, bytes) => {
    for (const alphabet of ['base64', 'base64url'] as const) {
      expect(maskOf(secret).redact(`token=${bytes.toString(alphabet)}`)).toMatch(/^token=\*{8}[A-Za-z0-9+/_-]?=*$/);
      for (const shift of [0, 1, 2]) {
        const encoded = Buffer.concat([Buffer.from('u'.repeat(shift)), bytes, Buffer.from(':rest')]).toString(alphabet);
        const masked = maskOf(secret).redact(`Basic ${encoded}`);
        expect(masked).toContain(MASK);
        expect(Buffer.from(masked.slice('Basic '.length).replace(MASK, ''), alphabet).toString('latin1')).not.toContain('p\u00e4s');
      }
    }
  });

  it('has no Latin-1 forms when a character is beyond Latin-1, which a header value cannot hold', () => {
    // Buffer's latin1 encoding would keep the low byte of € (U+20AC): a form of another text.
    const forms = secretForms('pässw€rd');
    const truncated = Buffer.from('pässw€rd', 'latin1');
    expect(forms).not.toContain(truncated.toString('hex'));
    expect(forms.some((form) => truncated.toString('base64').includes(form))).toBe(false);
    expect(maskOf('pässw€rd').redact('a p%E4ssw%AC%72d b')).toBe('a p%E4ssw%AC%72d b');
    // Its UTF-8 percent-encoding is masked all the same.
    expect(maskOf('pässw€rd').redact(`a ${encodeURIComponent('pässw€rd')} b`)).toBe(`a ${MASK} b`);
  });

  it.each<[string, string, string, boolean]>([
    ['the last Latin-1 character, ÿ (U+00FF), as its byte', 'abcÿefgh', 'abc%FFefgh', true],
    ['the first beyond Latin-1, Ā (U+0100), as the low byte of its code', 'abcĀefgh', 'abc%00efgh', false],
    ['Ť (U+0164) as the low byte of its code, the letter d', 'abcŤefgh', 'abc%64efgh', false],
    ['Ť (U+0164) as UTF-8', 'abcŤefgh', 'abc%C5%A4efgh', true],
  ])('percent-encodes %s: masked %s', (_name, secret, text, masked) => {
    expect(maskOf(secret).redact(`a ${text} b`)).toBe(masked ? `a ${MASK} b` : `a ${text} b`);
  });
});

describe('secrets that overlap', () => {
  it.each<[string, string[], string, string]>([
    [
      'one inside the other, the longer starting one character after a match of the shorter',
      ['aaaaaaaa', 'aaaaaaaaB-tail'],
      'x aaaaaaaaaB-tail y',
      `x ${MASK} y`,
    ],
    ['one inside the other, registered shorter first', ['abcdefgh', 'abcdefgh-tail-secret'], 'x abcdefgh-tail-secret y', `x ${MASK} y`],
    ['one inside the other, registered longer first', ['abcdefgh-tail-secret', 'abcdefgh'], 'x abcdefgh-tail-secret y', `x ${MASK} y`],
    ['the end of one the start of the other', ['xxabcdefgh', 'abcdefgh-tail-secret'], 'x xxabcdefgh-tail-secret y', `x ${MASK} y`],
    ['the shorter alone', ['abcdefgh', 'abcdefgh-tail-secret'], 'x abcdefgh-tail y', `x ${MASK}-tail y`],
    ['one after the other, touching', ['abcdefgh', 'ijklmnop'], 'abcdefghijklmnop', `${MASK}${MASK}`],
    ['the same secret twice in a row', ['abcdefgh'], 'abcdefghabcdefgh.', `${MASK}${MASK}.`],
    ['a secret that overlaps itself', ['abababab'], 'x ababababab y', `x ${MASK} y`],
  ])('masks %s whole', (_name, secrets, text, expected) => {
    expect(maskOf(...secrets).redact(text)).toBe(expected);
  });
});

describe('JSON values of every kind', () => {
  const mask = { redactValue: <T>(value: T): T => maskOf('secret-value-1').redactValue(value) };

  it.each<[string, unknown]>([
    ['null', null],
    ['null in an object', { a: null, b: 'secret-value-1' }],
    ['null in an array', [null, 'secret-value-1', [null]]],
    ['booleans and numbers', { t: true, f: false, n: 1, big: 12345678901234567890n }],
    ['an object with no prototype', Object.assign(Object.create(null) as object, { k: 'secret-value-1' })],
  ])('masks %s without throwing, and keeps what is not a string', (_name, value) => {
    const masked = mask.redactValue(value);
    expect(JSON.stringify(masked, (_key, item: unknown) => (typeof item === 'bigint' ? String(item) : item))).not.toContain(
      'secret-value-1',
    );
    if (value === null) expect(masked).toBeNull();
  });

  it('keeps a class instance as it is (a lossless number, a date)', () => {
    const date = new Date(0);
    expect(mask.redactValue({ date }).date).toBe(date);
  });

  it('keeps a key named __proto__ as an own key', () => {
    const masked = mask.redactValue(JSON.parse('{"__proto__":{"x":"secret-value-1"}}') as object);
    expect(Object.keys(masked)).toEqual(['__proto__']);
    expect(JSON.stringify(masked)).toBe(`{"__proto__":{"x":"${MASK}"}}`);
  });
});

describe('which values are distinctive', () => {
  it.each<[string, string, string | undefined]>([
    ['a JWT (it starts with e, a character of numbers)', 'eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl', undefined],
    ['a token that starts with digits', '123abcdefg', undefined],
    ['a token that ends with digits', 'abcdefg123', undefined],
    ['a number with a sign and an exponent', '-2.5e+10', 'is a number'],
    ['a long integer', '9223372036854775807', 'is a number'],
    ['white space only', '   ', 'is empty'],
    ['a tab inside', 'abcd\tefgh', 'holds a line break or control character'],
  ])('%s', (_name, value, problem) => {
    expect(maskProblem(value)).toBe(problem);
  });
});

describe('registering', () => {
  it.each<[string, string, boolean]>([
    ['a distinctive value', 'abcd-1234', true],
    ['the same value again', 'abcd-1234', true],
    ['a value with spaces around it', '  abcd-1234  ', true],
    ['a short value', 'abcd', false],
    ['a number', '12345678', false],
  ])('answers whether it registered %s', (_name, value, registered) => {
    const mask = maskOf('abcd-1234');
    expect(mask.add(value)).toBe(registered);
  });

  it('masks nothing, backslashes and percent signs included, until a value is registered', () => {
    const mask = createMask();
    expect(mask.redact('a \\n 100% b')).toBe('a \\n 100% b');
    expect(mask.mayHold('a \\n 100% b')).toBe(false);
    expect(mask.redactValue({ a: 'a \\n 100% b' })).toEqual({ a: 'a \\n 100% b' });
  });

  it('masks secrets that appear in the other order from their registering', () => {
    expect(maskOf('zzzz-secret-2', 'aaaa-secret-1').redact('aaaa-secret-1 and zzzz-secret-2')).toBe(`${MASK} and ${MASK}`);
  });

  it('hands back a JSON value as it is when nothing is registered', () => {
    const value = { a: 'text' };
    expect(createMask().redactValue(value)).toBe(value);
  });

  it.each<[string, unknown]>([
    ['undefined', undefined],
    ['an object holding undefined', { a: undefined }],
  ])('masks %s without throwing', (_name, value) => {
    expect(maskOf('secret-value-1').redactValue(value)).toEqual(value);
  });

  it('masks a value registered after a first use of the mask', () => {
    const mask = maskOf('first-secret');
    expect(mask.redact('first-secret second-secret')).toBe(`${MASK} second-secret`);
    mask.add('second-secret');
    expect(mask.redact('first-secret second-secret')).toBe(`${MASK} ${MASK}`);
  });

  it('masks a character beyond the Basic Multilingual Plane as it is, and a \\uffff escape', () => {
    expect(maskOf('token-😀-secret').redact('a token-😀-secret b')).toBe(`a ${MASK} b`);
    // As JSON writers that escape all but ASCII write it: the escapes of its two UTF-16 halves.
    expect(maskOf('token-😀-secret').redact('a token-\\ud83d\\ude00-secret b')).toBe(`a ${MASK} b`);
    expect(maskOf('token-😀-secret').redact('a token-\\uD83D\\uDE00-secret b')).toBe(`a ${MASK} b`);
    expect(maskOf('token-😀-secret').redact(`a ${encodeURIComponent('token-😀-secret')} b`)).toBe(`a ${MASK} b`);
    expect(maskOf('abc\uffffdefgh').redact('a abc\\uffffdefgh b')).toBe(`a ${MASK} b`);
  });

  it('makes a masked JSON copy whose keys can be listed, changed and deleted', () => {
    const masked = maskOf('secret-value-1').redactValue({ 'secret-value-1': 'v', other: 'secret-value-1' }) as Record<string, unknown>;
    expect(Object.keys(masked)).toEqual([MASK, 'other']);
    masked.other = 'changed';
    expect(masked.other).toBe('changed');
    delete masked[MASK];
    expect(Object.keys(masked)).toEqual(['other']);
  });
});

describe('headers', () => {
  it.each(SHOWN_HEADER_NAMES)('shows the value of %s, in any case', (name) => {
    expect(isShownRequestHeader(name)).toBe(true);
    expect(isShownRequestHeader(name.toUpperCase())).toBe(true);
    expect(isShownRequestHeader(name.toLowerCase())).toBe(true);
  });

  it('shows exactly seven headers', () => {
    expect(SHOWN_HEADER_NAMES).toEqual([
      'Accept',
      'Accept-Charset',
      'Accept-Encoding',
      'Accept-Language',
      'Content-Type',
      'User-Agent',
      'X-Tenant-Name',
    ]);
  });

  it.each(['Authorization', 'X-Gateway-Key', 'Cookie', 'X-Accept', ''])('masks the value of %j', (name) => {
    expect(isShownRequestHeader(name)).toBe(false);
  });

  it.each<[string, string]>([
    ['Bearer abc.def', `Bearer ${MASK}`],
    ['  bearer abc', `bearer ${MASK}`],
    ['Basic\tdXNlcjpwYXNz', `Basic ${MASK}`],
    ['Token abc', `Token ${MASK}`],
    ['Digest username="a"', `Digest ${MASK}`],
    ['Integrator 6f1c', MASK],
    ['xBearer abc', MASK],
    ['Bearerabc', MASK],
    ['abc', MASK],
  ])('masks %j as %j', (value, masked) => {
    expect(maskedHeaderValue(value)).toBe(masked);
  });
});

describe('text masked already', () => {
  it.each<[string, unknown, boolean]>([
    ['text marked masked', maskedText('a'), true],
    ['an object with the same text', { text: 'a' }, false],
    ['a string', 'a', false],
    ['null', null, false],
    ['undefined', undefined, false],
  ])('tells %s', (_name, value, expected) => {
    expect(isMaskedText(value)).toBe(expected);
  });

  it('keeps the text it marks', () => {
    expect(maskedText('a b').text).toBe('a b');
  });
});
