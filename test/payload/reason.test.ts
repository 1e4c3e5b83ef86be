import { describe, expect, it } from 'vitest';
import { validateReason } from '../../src/payload/index.js';
import { expectOnly, expectValid, fullReason, problemsOf, withValue } from './fixtures.js';

describe('an inactivity reason', () => {
  it('passes with every field', () => {
    expectValid(validateReason(fullReason()));
  });

  it('passes with only code and one translation', () => {
    expectValid(validateReason({ code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }] }));
  });

  // A batch's second pass sends an unchanged line's payload as it is, without running the checks
  // again (src/batch/check.ts, `accepted`): that is right only while the schema returns what it accepts.
  it.each([
    ['every field', fullReason()],
    ['only code and one translation', { code: 'LUNCH', reasons: [{ locale: 'EN', name: ' Lunch ' }] }],
  ])('returns the reason it accepts as it was given, with %s', (_, reason) => {
    const result = validateReason(reason);
    expectValid(result);
    expect(result.ok && result.value).toStrictEqual(reason);
  });

  it('has no warnings', () => {
    const result = validateReason(fullReason());
    expectValid(result);
    expect(result.warnings).toEqual([]);
  });

  it.each([
    ['no code', ['code'], undefined, 'code', 'required'],
    ['an empty code', ['code'], '', 'code', 'must not be empty'],
    ['no reasons', ['reasons'], undefined, 'reasons', 'required'],
    ['no translation', ['reasons'], [], 'reasons', 'must hold at least one item'],
    ['reasons as an object', ['reasons'], { en: 'Lunch' }, 'reasons', 'expected an array, got an object'],
    ['a translation without a locale', ['reasons', 0, 'locale'], undefined, 'reasons[0].locale', 'required'],
    ['a translation without a name', ['reasons', 0, 'name'], undefined, 'reasons[0].name', 'required'],
    ['active as a string', ['active'], 'yes', 'active', 'expected a boolean, got "yes"'],
    ['system as a number', ['system'], 0n, 'system', 'expected a boolean, got 0'],
  ])('fails with %s', (_, path, value, at, message) => {
    expectOnly(validateReason(withValue(fullReason(), path, value)), at, message);
  });
});

describe('reasons[].locale is a two-letter language code', () => {
  it.each(['en', 'ru', 'EN', 'De'])('passes %s', (locale) => {
    expectValid(validateReason(withValue(fullReason(), ['reasons', 0, 'locale'], locale)));
  });

  it.each([
    ['three letters', 'eng'],
    ['a letter and a digit', 'e1'],
    ['one letter', 'e'],
    ['a region tag', 'en-US'],
    ['empty', ''],
    ['letters outside ASCII', 'év'],
  ])('fails %s', (_, locale) => {
    expectOnly(
      validateReason(withValue(fullReason(), ['reasons', 0, 'locale'], locale)),
      'reasons[0].locale',
      `expected a two-letter language code such as "en", got ${JSON.stringify(locale)}`,
    );
  });

  it('fails a locale given twice, at the second, naming the first', () => {
    expectOnly(
      validateReason({
        code: 'LUNCH',
        reasons: [
          { locale: 'en', name: 'Lunch' },
          { locale: 'ru', name: 'Обед' },
          { locale: 'en', name: 'Break' },
        ],
      }),
      'reasons[2].locale',
      'locale "en" is repeated (locales compare without case); first at reasons[0].locale',
    );
  });

  it('compares locales without case', () => {
    expectOnly(
      validateReason({
        code: 'LUNCH',
        reasons: [
          { locale: 'en', name: 'Lunch' },
          { locale: 'EN', name: 'Break' },
        ],
      }),
      'reasons[1].locale',
      'locale "EN" is repeated (locales compare without case); first at reasons[0].locale',
    );
  });

  it('passes different locales', () => {
    expectValid(
      validateReason({
        code: 'LUNCH',
        reasons: [
          { locale: 'en', name: 'Lunch' },
          { locale: 'ru', name: 'Обед' },
        ],
      }),
    );
  });
});

describe('color is #RRGGBB', () => {
  it.each(['#FFFFFF', '#ffffff', '#A1b2C3', '#000000'])('passes %s', (color) => {
    expectValid(validateReason(withValue(fullReason(), ['color'], color)));
  });

  it.each([
    ['three digits', '#fff'],
    ['no hash', 'FFFFFF'],
    ['a colour name', 'red'],
    ['a non-hex digit', '#GGGGGG'],
    ['eight digits', '#FFFFFF00'],
    ['empty', ''],
  ])('fails %s', (_, color) => {
    expectOnly(
      validateReason(withValue(fullReason(), ['color'], color)),
      'color',
      `expected a colour as #RRGGBB, such as #FFFFFF, got ${JSON.stringify(color)}`,
    );
  });
});

describe('unknown fields in a reason', () => {
  it.each([
    [['colour'], 'colour', 'unknown field; did you mean "color"?'],
    [['enabled'], 'enabled', 'unknown field'],
    [['reasons', 0, 'lang'], 'reasons[0].lang', 'unknown field'],
    [['reasons', 0, 'nam'], 'reasons[0].nam', 'unknown field; did you mean "name"?'],
  ] as const)('%s fails', (path, at, message) => {
    expectOnly(validateReason(withValue(fullReason(), path, 'x')), at, message);
  });
});

describe('every problem of a reason at once', () => {
  it('reports field, cross-field and unknown-field problems together', () => {
    expect(
      problemsOf(
        validateReason({
          code: '',
          reasons: [
            { locale: 'en', name: 'x'.repeat(51) },
            { locale: 'EN', name: 'y' },
            { locale: 'eng', name: '' },
          ],
          color: '#fff',
          colour: '#ffffff',
        }),
      ),
    ).toEqual([
      { path: 'code', message: 'must not be empty' },
      { path: 'color', message: 'expected a colour as #RRGGBB, such as #FFFFFF, got "#fff"' },
      { path: 'colour', message: 'unknown field; did you mean "color"?' },
      { path: 'reasons[0].name', message: '51 characters, limit 50' },
      { path: 'reasons[1].locale', message: 'locale "EN" is repeated (locales compare without case); first at reasons[0].locale' },
      { path: 'reasons[2].locale', message: 'expected a two-letter language code such as "en", got "eng"' },
      { path: 'reasons[2].name', message: 'must not be empty' },
    ]);
  });
});
