import { describe, expect, it } from 'vitest';
import { validateReason } from '../../src/payload/index.js';
import { problemsOf } from './fixtures.js';

/** An inactivity reason's translations and colour (src/payload/reason.ts), on values that break more than one rule. */

const reason = (...reasons: unknown[]) => ({ code: 'LUNCH', reasons });
const localeProblem = (index: number, message: string) => ({ path: `reasons[${index}].locale`, message });

describe('each locale once', () => {
  it.each([
    ['a locale of three letters', 'eng', 'expected a two-letter language code such as "en", got "eng"'],
    ['a locale written as a list', ['en'], 'expected a string, got an array'],
    ['a locale that is a number', 5n, 'expected a string, got 5'],
  ])('%s, twice, is a problem each time and not a repeat', (_, locale, message) => {
    expect(problemsOf(validateReason(reason({ locale, name: 'a' }, { locale, name: 'b' })))).toEqual([
      localeProblem(0, message),
      localeProblem(1, message),
    ]);
  });

  it('a translation that is not an object is a problem, and the others are still compared', () => {
    expect(problemsOf(validateReason(reason(null, { locale: 'en', name: 'a' }, { locale: 'En', name: 'b' })))).toEqual([
      { path: 'reasons[0]', message: 'expected an object, got null' },
      { path: 'reasons[2].locale', message: 'locale "En" is repeated (locales compare without case); first at reasons[1].locale' },
    ]);
  });
});

describe('color', () => {
  it.each(['x#FFFFFF', '#FFFFFFx', ' #FFFFFF'])('fails %s, with more than the colour in it', (color) => {
    expect(problemsOf(validateReason({ ...reason({ locale: 'en', name: 'a' }), color }))).toEqual([
      { path: 'color', message: `expected a colour as #RRGGBB, such as #FFFFFF, got ${JSON.stringify(color)}` },
    ]);
  });
});
