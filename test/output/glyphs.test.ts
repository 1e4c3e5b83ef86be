import { describe, expect, it } from 'vitest';
import { ASCII_GLYPHS, decideUnicode, plainText, UNICODE_GLYPHS, type Glyphs } from '../../src/output/glyphs.js';
import { createContext } from '../../src/context.js';
import { memoryStreams } from '../helpers/streams.js';

/** The glyphs follow the locale: LC_ALL, else LC_CTYPE, else LANG; ASCII unless it is UTF-8 or unset. */

describe('decideUnicode', () => {
  it.each([
    [{}, true, 'no locale at all (containers, CI, Windows)'],
    [{ LANG: 'C.UTF-8' }, true, 'C.UTF-8'],
    [{ LANG: 'en_US.utf8' }, true, 'utf8 without the dash'],
    [{ LC_CTYPE: 'UTF-8' }, true, "macOS's LC_CTYPE=UTF-8"],
    [{ LANG: 'de_DE.UTF-8@euro' }, true, 'a modifier after the encoding'],
    [{ LC_ALL: 'C' }, false, 'LC_ALL=C'],
    [{ LANG: 'C' }, false, 'LANG=C'],
    [{ LC_CTYPE: 'POSIX' }, false, 'LC_CTYPE=POSIX'],
    [{ LANG: 'en_US.ISO-8859-1' }, false, 'another encoding'],
    [{ LC_ALL: 'C', LANG: 'en_US.UTF-8' }, false, 'LC_ALL wins over LANG'],
    [{ LC_CTYPE: 'C', LANG: 'en_US.UTF-8' }, false, 'LC_CTYPE wins over LANG'],
    [{ LC_ALL: 'en_US.UTF-8', LC_CTYPE: 'C' }, true, 'LC_ALL wins over LC_CTYPE'],
    [{ LC_ALL: '', LANG: 'C' }, false, 'an empty LC_ALL counts as unset'],
  ] as const)('%j: %s (%s)', (env, expected, _why) => {
    expect(decideUnicode(env)).toBe(expected);
  });
});

describe('the ASCII glyphs', () => {
  it('are ASCII, every one, and stand in for every Unicode glyph', () => {
    const flat = (glyphs: Glyphs) => JSON.stringify(glyphs);
    expect(flat(ASCII_GLYPHS)).toMatch(/^[\x00-\x7f]*$/);
    expect(Object.keys(ASCII_GLYPHS)).toEqual(Object.keys(UNICODE_GLYPHS));
    expect(flat(UNICODE_GLYPHS)).toMatch(/[^\x00-\x7f]/);
  });

  it("turn core's own punctuation in a message to ASCII, and leave it under UTF-8", () => {
    const message = 'text: "aaa…" (4,213 characters) · the customer’s → agents';
    expect(plainText(message, ASCII_GLYPHS)).toBe('text: "aaa..." (4,213 characters) - the customer\'s -> agents');
    expect(plainText(message, UNICODE_GLYPHS)).toBe(message);
  });

  it('are decided once, in the context, from its environment', () => {
    const make = (env: Record<string, string>) => createContext({ streams: memoryStreams().streams, env, cwd: '/' }).glyphs;
    expect(make({ LC_ALL: 'C' })).toBe(ASCII_GLYPHS);
    expect(make({ LANG: 'C.UTF-8' })).toBe(UNICODE_GLYPHS);
  });
});
