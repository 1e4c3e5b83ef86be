import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode, InterruptedError } from '../../src/errors.js';
import { validateReason } from '../../src/payload/index.js';
import { composeReason, composerEnv, type Draft } from '../../src/prompts/index.js';
import { CLEARED, confirm, ctrlC, input, scriptedPrompter, select, type Step } from './scripted.js';

/**
 * `core reason update -i`: the reason's prompts, driven by a scripted prompter: what is asked (and
 * only that), each validation message at the limit and one past it, the three answers for active,
 * the summary, and the edit, cancel and Ctrl-C paths.
 */

function compose(draft: Draft, steps: Step[]) {
  const prompter = scriptedPrompter(steps);
  const done = composeReason(draft, composerEnv(prompter, {}), {
    sendLabel: 'Send it',
    cwd: mkdtempSync(join(tmpdir(), 'core-reason-i-')),
  });
  return { prompter, done };
}

const send = select(/^What now/, 'send');
/** The optional parts, answered "leave it out". */
const noColor = input(/^Colour/, '');
const activeLeftOut = select(/^Active/, 'omit');
const systemLeftOut = select(/^system/, 'omit');
const optionalsLeftOut = [noColor, activeLeftOut, systemLeftOut];
const oneTranslation = (locale = 'en', name = 'Lunch'): Step[] => [
  input(/^Translation 1 locale/, locale),
  input(/^Translation 1 name/, name),
  confirm(/^Add another translation/, false),
];
const whole = { code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }], color: '#FF8800', active: true, system: false };

describe('composing a reason', () => {
  it("asks for everything from nothing, in the API's order, and returns the reason", async () => {
    const { prompter, done } = compose({}, [
      input(/^Code/, 'LUNCH'),
      input(/^Translation 1 locale/, 'en'),
      input(/^Translation 1 name/, 'Lunch'),
      confirm(/^Add another translation/, true),
      input(/^Translation 2 locale/, 'de'),
      input(/^Translation 2 name/, 'Mittagspause'),
      confirm(/^Add another translation/, false),
      input(/^Colour/, '#FF8800'),
      select(/^Active/, 'false'),
      select(/^system/, 'false'),
      send,
    ]);
    const reason = await done;
    expect(reason).toStrictEqual({
      code: 'LUNCH',
      reasons: [
        { locale: 'en', name: 'Lunch' },
        { locale: 'de', name: 'Mittagspause' },
      ],
      color: '#FF8800',
      active: false,
      system: false,
    });
    expect(Object.keys(reason)).toEqual(['code', 'reasons', 'color', 'active', 'system']);
    expect(prompter.left()).toBe(0);
  });

  it('asks nothing but the menu when the flags gave every field', async () => {
    const { prompter, done } = compose(whole, [send]);
    expect(await done).toStrictEqual(whole);
    expect(prompter.asked.map((a) => a.message)).toEqual(['What now?']);
  });

  it('asks only for what is missing', async () => {
    const { prompter, done } = compose({ code: 'LUNCH', active: false }, [...oneTranslation(), noColor, systemLeftOut, send]);
    expect(await done).toStrictEqual({ code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }], active: false });
    const asked = prompter.asked.map((a) => a.message);
    expect(asked.some((m) => /^Code|^Active/.test(m))).toBe(false);
  });

  it('offers send, edit and cancel, and no saving', async () => {
    const { prompter, done } = compose(whole, [send]);
    await done;
    expect(prompter.asked[0]!.choices!.map((c) => c.value)).toEqual(['send', 'edit', 'cancel']);
    expect(prompter.asked[0]!.choices!.map((c) => c.name)).toEqual(['Send it', 'Edit a part', 'Cancel: send nothing']);
  });

  it('shows a short summary of the reason before the menu', async () => {
    const { prompter, done } = compose(
      {
        code: 'LUNCH',
        reasons: [
          { locale: 'en', name: 'Lunch' },
          { locale: 'de', name: 'Mittagspause' },
        ],
      },
      [...optionalsLeftOut, send],
    );
    await done;
    expect(prompter.written).toBe(
      [
        '',
        'Update of the inactivity reason LUNCH',
        '  Code          LUNCH',
        '  Translations  en "Lunch", de "Mittagspause"',
        '  Colour        not sent',
        '  Active        left out: the service applies its default, true',
        '  System        not sent',
        '✓ ready to send',
        '',
      ].join('\n'),
    );
  });
});

describe('validation while typing, by the reason schema', () => {
  it.each<[string, string, string | null]>([
    ['256 characters', 'c'.repeat(256), null],
    ['257 characters', 'c'.repeat(257), '257 characters, limit 256'],
  ])('checks a code of %s', async (_name, code, message) => {
    const { prompter, done } = compose({ reasons: [{ locale: 'en', name: 'Lunch' }] }, [
      input(/^Code/, code, 'LUNCH'),
      ...optionalsLeftOut,
      send,
    ]);
    const reason = await done;
    expect(prompter.rejections).toEqual(message === null ? [] : [message]);
    expect(reason.code).toBe(message === null ? code : 'LUNCH');
    const asked = prompter.asked[0]!;
    expect(asked.message).toBe('Code of the reason to update (up to 256 characters)');
    expect(asked.shown).toBe(message === null ? `${code} (0 left)` : `${code} (1 over the limit of 256)`);
  });

  it('refuses an empty code', async () => {
    const { prompter, done } = compose({ reasons: [{ locale: 'en', name: 'Lunch' }] }, [
      input(/^Code/, CLEARED, 'LUNCH'),
      ...optionalsLeftOut,
      send,
    ]);
    await done;
    expect(prompter.rejections).toEqual(['must not be empty']);
  });

  it.each<[string, string, string | null]>([
    ['50 characters', 'n'.repeat(50), null],
    ['51 characters', 'n'.repeat(51), '51 characters, limit 50'],
  ])('checks a name of %s, showing the characters left', async (_name, name, message) => {
    const { prompter, done } = compose({ code: 'LUNCH' }, [
      input(/^Translation 1 locale/, 'en'),
      input(/^Translation 1 name/, name, 'Lunch'),
      confirm(/^Add another/, false),
      ...optionalsLeftOut,
      send,
    ]);
    const reason = await done;
    expect(prompter.rejections).toEqual(message === null ? [] : [message]);
    expect((reason.reasons as { name: string }[])[0]!.name).toBe(message === null ? name : 'Lunch');
    const asked = prompter.asked.find((a) => a.message.startsWith('Translation 1 name'))!;
    expect(asked.message).toBe('Translation 1 name (up to 50 characters)');
    expect(asked.shown).toBe(message === null ? `${name} (0 left)` : `${name} (1 over the limit of 50)`);
  });

  it('counts down the characters left of a name as it is typed', async () => {
    const { prompter, done } = compose({ code: 'LUNCH' }, [...oneTranslation('en', 'Lunch'), ...optionalsLeftOut, send]);
    await done;
    expect(prompter.asked.find((a) => a.message.startsWith('Translation 1 name'))!.shown).toBe('Lunch (45 left)');
  });

  it.each([['eng'], ['e1'], ['']])("refuses the locale %j with the schema's message", async (locale) => {
    const { prompter, done } = compose({ code: 'LUNCH' }, [
      input(/^Translation 1 locale/, locale === '' ? CLEARED : locale, 'EN'),
      input(/^Translation 1 name/, 'Lunch'),
      confirm(/^Add another/, false),
      ...optionalsLeftOut,
      send,
    ]);
    const reason = await done;
    expect(prompter.rejections).toEqual([`expected a two-letter language code such as "en", got ${JSON.stringify(locale)}`]);
    // Either case is a language code (src/payload/reason.ts).
    expect(reason.reasons).toEqual([{ locale: 'EN', name: 'Lunch' }]);
  });

  it('refuses a repeated locale (compared without case) with the message the payload validation gives', async () => {
    const { prompter, done } = compose({ code: 'LUNCH' }, [
      input(/^Translation 1 locale/, 'en'),
      input(/^Translation 1 name/, 'Lunch'),
      confirm(/^Add another/, true),
      input(/^Translation 2 locale/, 'EN', 'de'),
      input(/^Translation 2 name/, 'Mittagspause'),
      confirm(/^Add another/, false),
      ...optionalsLeftOut,
      send,
    ]);
    const reason = await done;
    const whole = validateReason({
      code: 'LUNCH',
      reasons: [
        { locale: 'en', name: 'Lunch' },
        { locale: 'EN', name: 'Mittagspause' },
      ],
    });
    expect(whole.ok).toBe(false);
    const rule = !whole.ok ? whole.problems.find((p) => p.path === 'reasons[1].locale')!.message : '';
    expect(prompter.rejections).toEqual([rule]);
    expect(rule).toBe('locale "EN" is repeated (locales compare without case); first at reasons[0].locale');
    expect(reason.reasons).toEqual([
      { locale: 'en', name: 'Lunch' },
      { locale: 'de', name: 'Mittagspause' },
    ]);
  });

  it.each<[string, string, string | null]>([
    ['#RRGGBB', '#ff8800', null],
    ['three digits', '#F80', 'expected a colour as #RRGGBB, such as #FFFFFF, got "#F80"'],
    ['no #', 'FF8800', 'expected a colour as #RRGGBB, such as #FFFFFF, got "FF8800"'],
    ['a name', 'orange', 'expected a colour as #RRGGBB, such as #FFFFFF, got "orange"'],
  ])('checks a colour given as %s', async (_name, color, message) => {
    const { prompter, done } = compose({ code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }] }, [
      input(/^Colour/, color, '#123456'),
      activeLeftOut,
      systemLeftOut,
      send,
    ]);
    const reason = await done;
    expect(prompter.rejections).toEqual(message === null ? [] : [message]);
    expect(reason.color).toBe(message === null ? color : '#123456');
    expect(prompter.asked[0]!.message).toBe('Colour as #RRGGBB, such as #FF8800 (Enter to skip)');
  });

  it('leaves the colour out on Enter', async () => {
    const { done } = compose({ code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }] }, [...optionalsLeftOut, send]);
    expect(await done).toStrictEqual({ code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }] });
  });
});

describe('active and system', () => {
  it.each<[string, unknown]>([
    ['true', true],
    ['false', false],
    ['omit', undefined],
  ])('the choice %s gives active %s', async (choice, active) => {
    const { done } = compose({ code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }] }, [
      noColor,
      select(/^Active/, choice),
      systemLeftOut,
      send,
    ]);
    const reason = await done;
    expect(reason.active).toBe(active);
    expect('active' in reason).toBe(active !== undefined);
  });

  it('offers three choices and says that leaving active out lets the service apply its default, true', async () => {
    const { prompter, done } = compose({ code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }] }, [...optionalsLeftOut, send]);
    await done;
    const asked = prompter.asked.find((a) => a.message === 'Active?')!;
    expect(asked.choices!.map((c) => c.value)).toEqual(['true', 'false', 'omit']);
    expect(asked.choices!.map((c) => c.name)).toEqual([
      'Active: the reason is available (sends "active": true)',
      'Inactive: the reason is not available (sends "active": false)',
      'Leave it out: not sent; the service applies its default, true',
    ]);
  });

  it.each<[string, unknown]>([
    ['true', true],
    ['false', false],
    ['omit', undefined],
  ])('the system choice %s gives system %s', async (choice, system) => {
    const { done } = compose({ code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }] }, [
      noColor,
      activeLeftOut,
      select(/^system/, choice),
      send,
    ]);
    const reason = await done;
    expect(reason.system).toBe(system);
    expect('system' in reason).toBe(system !== undefined);
  });
});

describe('the menu', () => {
  it('edits the translations, with the earlier answers as defaults', async () => {
    const { prompter, done } = compose({ code: 'LUNCH' }, [
      ...oneTranslation('en', 'Lunch'),
      ...optionalsLeftOut,
      select(/^What now/, 'edit'),
      select(/^Which part/, 'reasons'),
      input(/^Translation 1 locale/, ''),
      input(/^Translation 1 name/, 'Long lunch'),
      confirm(/^Add another/, true),
      input(/^Translation 2 locale/, 'fr'),
      input(/^Translation 2 name/, 'Déjeuner'),
      confirm(/^Add another/, false),
      send,
    ]);
    expect((await done).reasons).toEqual([
      { locale: 'en', name: 'Long lunch' },
      { locale: 'fr', name: 'Déjeuner' },
    ]);
    const edited = prompter.asked.filter((a) => a.message.startsWith('Translation 1'));
    expect(edited.map((a) => a.default)).toEqual([undefined, undefined, 'en', 'Lunch']);
    const parts = prompter.asked.find((a) => a.message === 'Which part?')!;
    expect(parts.choices!.map((c) => c.name)).toEqual([
      'Code: LUNCH',
      'Translations: en "Lunch"',
      'Colour: none',
      'Active: left out: the service applies its default, true',
      'System: none',
      'Back to the preview',
    ]);
  });

  it('edits active and removes the colour', async () => {
    const { done } = compose(whole, [
      select(/^What now/, 'edit'),
      select(/^Which part/, 'active'),
      select(/^Active/, 'omit'),
      select(/^What now/, 'edit'),
      select(/^Which part/, 'color'),
      select(/^Colour/, 'remove'),
      send,
    ]);
    expect(await done).toStrictEqual({ code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }], system: false });
  });

  it('shows the problems of a reason from a file, holds back "Send" and offers to edit', async () => {
    const { prompter, done } = compose({ ...whole, color: 'orange' }, [
      select(/^What now/, 'edit'),
      select(/^Which part/, 'color'),
      select(/^Colour/, 'change'),
      input(/^Colour/, CLEARED),
      send,
    ]);
    expect(await done).toStrictEqual({ code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }], active: true, system: false });
    const menu = prompter.asked[0]!;
    expect(menu.default).toBe('edit');
    expect(menu.choices![0]!.disabled).toBe('(fix the problems first)');
    expect(prompter.written).toContain('color: expected a colour as #RRGGBB, such as #FFFFFF, got "orange"');
  });

  it('ends with "cancelled, nothing sent" (exit 130) on Cancel', async () => {
    const { done } = compose(whole, [select(/^What now/, 'cancel')]);
    const error = await done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as InterruptedError).message).toBe('cancelled, nothing sent');
    expect((error as InterruptedError).exitCode).toBe(ExitCode.interrupted);
  });

  it.each<[string, Step[]]>([
    ['the code', [ctrlC('input', /^Code/)]],
    ['a translation', [input(/^Code/, 'LUNCH'), ctrlC('input', /^Translation 1 locale/)]],
    ['active', [input(/^Code/, 'LUNCH'), ...oneTranslation(), noColor, ctrlC('select', /^Active/)]],
    ['the menu', [input(/^Code/, 'LUNCH'), ...oneTranslation(), ...optionalsLeftOut, ctrlC('select', /^What now/)]],
  ])('ends with "cancelled, nothing sent" (exit 130) on Ctrl-C at %s', async (_name, steps) => {
    const { done } = compose({}, steps);
    const error = await done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as InterruptedError).exitCode).toBe(130);
  });
});
