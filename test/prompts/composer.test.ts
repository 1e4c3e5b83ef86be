import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode, InterruptedError } from '../../src/errors.js';
import { validateGreeting, validateReply, type Limits } from '../../src/payload/index.js';
import { parseJson } from '../../src/payload/json.js';
import { composeGreeting, composeReply, composerEnv, savePayload, type Draft } from '../../src/prompts/index.js';
import { CLEARED, checkbox, confirm, ctrlC, editor, input, scriptedPrompter, select, type Step } from './scripted.js';

/**
 * The composer's flows, driven by a scripted prompter: what it asks (and only that), what each
 * answer's validation says, the preview, and the edit, save, cancel and Ctrl-C paths.
 */

const tmp = () => mkdtempSync(join(tmpdir(), 'core-composer-'));

function greet(draft: Draft, steps: Step[], limits: Limits = {}, cwd = tmp()) {
  const prompter = scriptedPrompter(steps);
  const done = composeGreeting(draft, composerEnv(prompter, limits), {
    validate: (d) => validateGreeting(d, { limits }),
    sendLabel: 'Send it',
    save: (path, d) => savePayload(path, d, cwd),
    cwd,
  });
  return { prompter, done };
}

function reply(draft: Draft, steps: Step[], email = false) {
  const prompter = scriptedPrompter(steps);
  const cwd = tmp();
  const done = composeReply(draft, composerEnv(prompter, {}), {
    validate: (d) => validateReply(d, { email }),
    email,
    sendLabel: 'Send it',
    save: (path, d) => savePayload(path, d, cwd),
    cwd,
  });
  return { prompter, done };
}

const oneLine = select(/^Text: how/, 'line');
const send = select(/^What now/, 'send');
const noExtras = checkbox(/^Add to the greeting/);
/** Edit the quick replies, taking every default of button 1 (Enter on each), then send. */
const keepFirstButton = [
  noExtras,
  select(/^What now/, 'edit'),
  select(/^Which part/, 'quickReplies'),
  select(/^Quick-reply buttons/, 'change'),
  select(/^Button 1 type/, 'TEXT'),
  input(/^Button 1 text/, ''),
  confirm(/^Set shown_text/, false),
  confirm(/^Add another/, false),
  send,
];

describe('composing a greeting', () => {
  it("asks for everything from nothing and returns the greeting in the API's order", async () => {
    const { prompter, done } = greet({}, [
      oneLine,
      input(/^Text/, 'Hello! How can we help?'),
      select(/^Greet which client/, 'coreClientId'),
      input(/^coreClientId/, '9223372036854775807'),
      checkbox(/^Add to the greeting/, 'quickReplies', 'settings'),
      select(/^Button 1 type/, 'TEXT'),
      input(/^Button 1 text/, 'Track my order'),
      confirm(/^Set shown_text/, false),
      confirm(/^Add another button/, true),
      select(/^Button 2 type/, 'CONTACT'),
      input(/^Button 2 text/, 'Share my phone'),
      confirm(/^Set shown_text/, true),
      input(/shown_text/, 'Here is my number'),
      input(/callback_data/, 'share_phone'),
      input(/imageUrl/, ''),
      input(/url/, ''),
      confirm(/^Add another button/, false),
      checkbox(/^Settings/, 'blockInput'),
      send,
    ]);
    const payload = await done;
    expect(payload).toEqual({
      text: 'Hello! How can we help?',
      coreClientId: 9223372036854775807n,
      quickReplies: [
        { type: 'TEXT', text: 'Track my order' },
        { type: 'CONTACT', text: 'Share my phone', shown_text: 'Here is my number', callback_data: 'share_phone' },
      ],
      settings: { blockInput: true },
    });
    expect(Object.keys(payload)).toEqual(['text', 'coreClientId', 'quickReplies', 'settings']);
    expect(prompter.left()).toBe(0);
  });

  it('asks only for what the flags and the file did not give', async () => {
    const { prompter, done } = greet({ text: 'Hi', coreClientId: 7n, quickReplies: [{ type: 'TEXT', text: 'Yes' }] }, [noExtras, send]);
    await done;
    expect(prompter.asked.map((a) => a.message)).toEqual([expect.stringMatching(/^Add to the greeting/), 'What now?']);
    const offered = prompter.asked[0]!.choices!.map((c) => c.value);
    expect(offered).toEqual(['quickRepliesHeaderFooter', 'messageListPicker', 'settings']);
  });

  it('asks for the client only, when the text came from a flag', async () => {
    const { prompter, done } = greet({ text: 'Hi' }, [select(/^Greet which/, 'clientId'), input(/^clientId/, 'ext-42'), noExtras, send]);
    expect(await done).toEqual({ text: 'Hi', clientId: 'ext-42' });
    expect(prompter.asked[0]!.message).toMatch(/^Greet which client/);
  });

  it('takes a longer text from the editor, without the newline the editor adds', async () => {
    const { done } = greet({ coreClientId: 1n }, [select(/^Text: how/, 'editor'), editor(/^Text/, 'Line one\nLine two\n'), noExtras, send]);
    expect((await done).text).toBe('Line one\nLine two');
  });

  it('draws a preview with the text, the buttons, header and footer, and the list', async () => {
    const { prompter, done } = greet(
      {
        text: 'Welcome to Acme',
        coreClientId: 42n,
        quickReplies: [
          { type: 'TEXT', text: 'Track order' },
          { type: 'CONTACT', text: 'Call me' },
        ],
        quickRepliesHeaderFooter: { header: [{ text: 'Acme support' }], footer: [{ text: 'Open 24/7' }] },
        messageListPicker: {
          title: 'Topics',
          sections: [{ title: 'Orders', items: [{ title: 'Where is it', subTitle: 'Tracking', identifier: 'where' }] }],
        },
        settings: { blockInput: true },
      },
      [send],
    );
    await done;
    const preview = prompter.written;
    expect(preview).toContain('Greeting to coreClientId 42');
    for (const text of [
      'Welcome to Acme',
      'Acme support',
      'Open 24/7',
      '│ Track order │',
      '│ ☎ Call me │',
      '☰ Topics',
      'ORDERS',
      '○ Where is it',
      'Tracking',
      'input field blocked',
      '✓ ready to send',
    ]) {
      expect(preview).toContain(text);
    }
    expect(preview).toMatch(/╭─+╮\n│ Acme support +│/);
  });
});

describe('validation while typing, by the payload schemas', () => {
  it.each<[string, Step[], string, Limits?]>([
    ['an empty text', [oneLine, input(/^Text/, '', 'ok')], 'must not be empty'],
    [
      'a coreClientId that is not a number',
      [select(/^Greet/, 'coreClientId'), input(/^coreClientId/, 'abc', '1')],
      'expected an integer from 0 to 9,223,372,036,854,775,807, got "abc"',
    ],
    [
      'a coreClientId past the largest long',
      [select(/^Greet/, 'coreClientId'), input(/^coreClientId/, '9223372036854775808', '1')],
      'expected an integer from 0 to 9,223,372,036,854,775,807, got 9223372036854775808',
    ],
  ])('rejects %s', async (_name, steps, message) => {
    const draft: Draft = {};
    if (!steps.some((s) => s.message.source.includes('Text'))) draft.text = 'x';
    if (!steps.some((s) => s.message.source.includes('Greet'))) draft.coreClientId = 1n;
    const { prompter, done } = greet(draft, [...steps, noExtras, send]);
    await done;
    expect(prompter.rejections).toEqual([message]);
  });

  const buttonSteps = (text: string[], extras: Step[] = []): Step[] => [
    checkbox(/^Add to/, 'quickReplies'),
    select(/^Button 1 type/, 'TEXT'),
    input(/^Button 1 text/, ...text),
    confirm(/^Set shown_text/, extras.length > 0),
    ...extras,
    confirm(/^Add another/, false),
    send,
  ];

  it.each<[string, string, Limits, string | null]>([
    ['4,000 characters', 'x'.repeat(4000), {}, null],
    ['4,001 characters', 'x'.repeat(4001), {}, '4,001 characters, limit 4,000'],
    ["the profile's maxQuickReplyLength", 'x'.repeat(40), { maxQuickReplyLength: 40 }, null],
    [
      "one past the profile's maxQuickReplyLength",
      'x'.repeat(41),
      { maxQuickReplyLength: 40 },
      "41 characters, limit 40 (the profile's maxQuickReplyLength)",
    ],
  ])('checks a quick-reply text of %s', async (_name, text, limits, message) => {
    const { prompter, done } = greet({ text: 'Hi', coreClientId: 1n }, buttonSteps([text, 'ok']), limits);
    const payload = await done;
    if (message === null) {
      expect(prompter.rejections).toEqual([]);
      expect((payload.quickReplies as { text: string }[])[0]!.text).toBe(text);
    } else {
      expect(prompter.rejections).toEqual([message]);
    }
  });

  it.each<[string, RegExp, number, string]>([
    ['shown_text', /shown_text/, 2000, '2,001 characters, limit 2,000'],
    ['callback_data', /callback_data/, 255, '256 characters, limit 255'],
    ['imageUrl', /imageUrl/, 4000, '4,001 characters, limit 4,000'],
    ['url', /\burl \(/, 4000, '4,001 characters, limit 4,000'],
  ])('checks a quick reply %s at its limit and one past it', async (field, pattern, limit, message) => {
    const extras: Step[] = ['shown_text', 'callback_data', 'imageUrl', 'url'].map((name) =>
      name === field ? input(pattern, 'y'.repeat(limit + 1), 'y'.repeat(limit)) : input(new RegExp(`^  ${name} `), ''),
    );
    const { prompter, done } = greet({ text: 'Hi', coreClientId: 1n }, buttonSteps(['Go'], extras));
    const payload = await done;
    expect(prompter.rejections).toEqual([message]);
    expect((payload.quickReplies as Record<string, string>[])[0]![field]).toHaveLength(limit);
  });

  it('shows the characters left while a limited field is typed, and the limit in its message', async () => {
    const { prompter, done } = greet({ text: 'Hi', coreClientId: 1n }, buttonSteps(['Track my order']));
    await done;
    const asked = prompter.asked.find((a) => a.message.startsWith('Button 1 text'))!;
    expect(asked.message).toBe('Button 1 text (up to 4,000 characters)');
    expect(asked.shown).toBe('Track my order (3,986 left)');
  });

  it('says how far past the limit a typed value is', async () => {
    const { prompter, done } = greet({ text: 'Hi', coreClientId: 1n }, [
      checkbox(/^Add to/, 'quickRepliesHeaderFooter'),
      select(/^Header/, 'text'),
      input(/^Header text/, 'h'.repeat(63), 'Acme'),
      input(/^Footer text/, ''),
      send,
    ]);
    await done;
    expect(prompter.asked.find((a) => a.message.startsWith('Header text'))!.shown).toBe(`${'h'.repeat(63)} (2 over the limit of 61)`);
    expect(prompter.rejections).toEqual(['63 characters, limit 61']);
  });

  it("stops offering buttons at the profile's maxQuickReplies", async () => {
    const { prompter, done } = greet(
      { text: 'Hi', coreClientId: 1n },
      [
        checkbox(/^Add to/, 'quickReplies'),
        select(/^Button 1 type/, 'TEXT'),
        input(/^Button 1 text/, 'A'),
        confirm(/^Set shown_text/, false),
        confirm(/^Add another/, true),
        select(/^Button 2 type/, 'TEXT'),
        input(/^Button 2 text/, 'B'),
        confirm(/^Set shown_text/, false),
        send,
      ],
      { maxQuickReplies: 2 },
    );
    expect((await done).quickReplies).toHaveLength(2);
    expect(prompter.written).toContain('That is the most buttons the profile allows (maxQuickReplies 2)');
  });

  it('builds a list, suggests identifiers, and rejects one used twice in the message', async () => {
    const { prompter, done } = greet({ text: 'Hi', coreClientId: 1n }, [
      checkbox(/^Add to/, 'messageListPicker'),
      input(/^List button title/, 'A button title too long', 'Topics'),
      input(/^Section 1 title/, 'Orders'),
      input(/^Item 1 title/, 'Track an order'),
      input(/^Item 1 subtitle/, ''),
      input(/^Item 1 identifier/, ''),
      confirm(/^Add another item/, true),
      input(/^Item 2 title/, 'Track again'),
      input(/^Item 2 subtitle/, 'Same thing'),
      input(/^Item 2 identifier/, 'track-an-order', 'again'),
      confirm(/^Add another item/, false),
      confirm(/^Add another section/, false),
      input(/^List header text/, ''),
      input(/^List footer text/, 'Pick one'),
      send,
    ]);
    expect((await done).messageListPicker).toEqual({
      footer: { text: 'Pick one' },
      title: 'Topics',
      sections: [
        {
          title: 'Orders',
          items: [
            { title: 'Track an order', identifier: 'track-an-order' },
            { title: 'Track again', subTitle: 'Same thing', identifier: 'again' },
          ],
        },
      ],
    });
    expect(prompter.rejections).toEqual([
      '23 characters, limit 20',
      'sections[0].items[1].identifier: identifier "track-an-order" is already used at sections[0].items[0].identifier; identifiers must be unique across the message',
    ]);
  });

  it('stops the list at 10 items across all sections', async () => {
    const steps: Step[] = [checkbox(/^Add to/, 'messageListPicker'), input(/^List button/, 'Pick'), input(/^Section 1 title/, '')];
    for (let i = 1; i <= 10; i++) {
      steps.push(input(new RegExp(`^Item ${i} title`), `Item ${i}`), input(/subtitle/, ''), input(/identifier/, ''));
      if (i < 10) steps.push(confirm(/^Add another item/, true));
    }
    steps.push(input(/^List header/, ''), input(/^List footer/, ''), send);
    const { prompter, done } = greet({ text: 'Hi', coreClientId: 1n }, steps);
    const picker = (await done).messageListPicker as { sections: { items: unknown[] }[] };
    expect(picker.sections[0]!.items).toHaveLength(10);
    expect(prompter.written).toContain('That is the most items a list can hold (10 across all sections)');
  });
});

describe('the review menu', () => {
  const ready: Draft = { text: 'Hi', coreClientId: 1n, quickReplies: [{ type: 'TEXT', text: 'Yes' }], settings: { masked: true } };

  it('edits a part with its old value as the default, then sends', async () => {
    const { prompter, done } = greet({ ...ready }, [
      noExtras,
      select(/^What now/, 'edit'),
      select(/^Which part/, 'text'),
      oneLine,
      input(/^Text/, 'Hello again'),
      send,
    ]);
    expect((await done).text).toBe('Hello again');
    expect(prompter.asked.find((a) => a.message === 'Text')!.default).toBe('Hi');
  });

  it('keeps an old value when Enter is pressed on its default', async () => {
    const { done } = greet({ ...ready }, keepFirstButton);
    expect((await done).quickReplies).toEqual([{ type: 'TEXT', text: 'Yes' }]);
  });

  it('removes an optional part', async () => {
    const { done } = greet({ ...ready }, [
      noExtras,
      select(/^What now/, 'edit'),
      select(/^Which part/, 'settings'),
      select(/^Settings/, 'remove'),
      send,
    ]);
    const greeting = await done;
    expect(greeting).toEqual({ text: 'Hi', coreClientId: 1n, quickReplies: [{ type: 'TEXT', text: 'Yes' }] });
    expect(greeting).not.toHaveProperty('settings');
  });

  it('drops an optional field whose default is cleared', async () => {
    const { done } = greet({ text: 'Hi', coreClientId: 1n, quickReplies: [{ type: 'TEXT', text: 'Yes', callback_data: 'cb' }] }, [
      noExtras,
      select(/^What now/, 'edit'),
      select(/^Which part/, 'quickReplies'),
      select(/^Quick-reply buttons/, 'change'),
      select(/^Button 1 type/, 'TEXT'),
      input(/^Button 1 text/, ''),
      confirm(/^Set shown_text/, true),
      input(/shown_text/, ''),
      input(/callback_data/, CLEARED),
      input(/imageUrl/, ''),
      input(/url/, ''),
      confirm(/^Add another/, false),
      send,
    ]);
    expect((await done).quickReplies).toEqual([{ type: 'TEXT', text: 'Yes' }]);
  });

  it('will not send a greeting with problems: it lists them and offers to edit', async () => {
    const { prompter, done } = greet({ text: 'Hi', coreClientId: 1n, quickReplies: [{ type: 'BOGUS', text: 'Yes' }] }, keepFirstButton);
    await done;
    const firstMenu = prompter.asked.find((a) => a.message === 'What now?')!;
    expect(firstMenu.choices!.find((c) => c.value === 'send')!.disabled).toBe('(fix the problems first)');
    expect(firstMenu.default).toBe('edit');
    expect(prompter.written).toContain(
      '✗ 1 problem; choose "Edit a part" to fix:\n  quickReplies[0].type: must be one of TEXT, CONTACT, got "BOGUS"',
    );
  });

  it('shows the warnings of the payload schema under the preview', async () => {
    const { prompter, done } = greet({ text: 'Hi', coreClientId: 1n, clientId: 'ext' }, [noExtras, send]);
    await done;
    expect(prompter.written).toMatch(/! clientId: .*takes priority over coreClientId/);
  });

  it('saves to a file, exact to the last digit, and goes back to the menu', async () => {
    const cwd = tmp();
    const { prompter, done } = greet(
      { text: 'Hi', coreClientId: 9223372036854775807n },
      [noExtras, select(/^What now/, 'save'), input(/^Save to file/, ''), send],
      {},
      cwd,
    );
    await done;
    expect(prompter.asked.find((a) => a.message === 'Save to file')!.default).toBe('greeting.json');
    const saved = readFileSync(join(cwd, 'greeting.json'), 'utf8');
    expect(saved).toContain('"coreClientId": 9223372036854775807');
    expect(parseJson(saved)).toEqual({ text: 'Hi', coreClientId: 9223372036854775807n });
    expect(prompter.written).toContain('send it later with -f greeting.json');
  });

  it('asks before replacing a file, and keeps it when told no', async () => {
    const cwd = tmp();
    writeFileSync(join(cwd, 'keep.json'), 'old');
    const { done } = greet(
      { text: 'Hi', coreClientId: 1n },
      [noExtras, select(/^What now/, 'save'), input(/^Save to file/, 'keep.json'), confirm(/keep.json exists/, false), send],
      {},
      cwd,
    );
    await done;
    expect(readFileSync(join(cwd, 'keep.json'), 'utf8')).toBe('old');
  });

  it('reports a file it cannot write and stays in the menu', async () => {
    const cwd = tmp();
    const { prompter, done } = greet(
      { text: 'Hi', coreClientId: 1n },
      [noExtras, select(/^What now/, 'save'), input(/^Save to file/, 'no/such/dir/x.json'), send],
      {},
      cwd,
    );
    await done;
    expect(prompter.written).toContain('✗ cannot write the payload to no/such/dir/x.json: its folder does not exist');
    expect(existsSync(join(cwd, 'no'))).toBe(false);
  });

  it('cancels with "cancelled, nothing sent" and exit code 130', async () => {
    const { done } = greet({ text: 'Hi', coreClientId: 1n }, [noExtras, select(/^What now/, 'cancel')]);
    const error = await done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as InterruptedError).message).toBe('cancelled, nothing sent');
    expect((error as InterruptedError).exitCode).toBe(ExitCode.interrupted);
  });

  it.each<[string, Step[]]>([
    ['the text', [ctrlC('select', /^Text: how/)]],
    ['a typed field', [oneLine, ctrlC('input', /^Text/)]],
    [
      'the extras',
      [oneLine, input(/^Text/, 'Hi'), select(/^Greet/, 'coreClientId'), input(/^coreClientId/, '1'), ctrlC('checkbox', /^Add to/)],
    ],
    [
      'the review menu',
      [
        oneLine,
        input(/^Text/, 'Hi'),
        select(/^Greet/, 'coreClientId'),
        input(/^coreClientId/, '1'),
        noExtras,
        ctrlC('select', /^What now/),
      ],
    ],
  ])('turns Ctrl-C at %s into "cancelled, nothing sent" (exit 130)', async (_name, steps) => {
    const { done } = greet({}, steps);
    const error = await done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as InterruptedError).exitCode).toBe(130);
  });
});

describe('composing a reply', () => {
  it('asks for the address and hands the thread to agents with SWITCH_TO_HUMAN', async () => {
    const { prompter, done } = reply({ text: 'Passing you on', answerId: 'a-1' }, [
      select(/^Address the reply by/, 'questionId'),
      input(/^questionId/, '-3', '998877'),
      checkbox(/^Add to the reply/, 'code'),
      select(/^Code/, 'SWITCH_TO_HUMAN'),
      input(/^userIds/, '5, 6'),
      input(/^skillIds/, '7 7', '7'),
      input(/^unitIds/, ''),
      select(/^What now/, 'send'),
    ]);
    const payload = await done;
    expect(payload).toEqual({
      text: 'Passing you on',
      answerId: 'a-1',
      questionId: 998877n,
      code: 'SWITCH_TO_HUMAN',
      userIds: [5n, 6n],
      skillIds: [7n],
    });
    expect(Object.keys(payload)).toEqual(['text', 'answerId', 'questionId', 'code', 'userIds', 'skillIds']);
    expect(prompter.rejections).toEqual([expect.stringMatching(/^expected an integer from 0/), '[1]: 7 is repeated; first at [0]']);
    expect(prompter.written).toContain('Reply to questionId 998877 · SWITCH_TO_HUMAN');
  });

  it('asks for sessionId and questionIndex for a question that came by email', async () => {
    const { prompter, done } = reply(
      { text: 'Thanks for your email', coreClientId: 5n },
      [
        select(/^Address the reply by/, 'session'),
        input(/^sessionId/, 'thread-9'),
        input(/^questionIndex/, '3'),
        checkbox(/^Add to the reply/),
        select(/^What now/, 'send'),
      ],
      true,
    );
    expect(await done).toEqual({ text: 'Thanks for your email', sessionId: 'thread-9', questionIndex: 3n });
    expect(prompter.asked[0]!.default).toBe('session');
  });

  it('attaches a file, suggesting its name and MIME type from the URL', async () => {
    const { prompter, done } = reply({ text: 'Your invoice', coreClientId: 5n }, [
      checkbox(/^Add to the reply/, 'attachments'),
      input(/^Attachment 1 URL/, 'invoice.pdf', 'https://cdn.example.com/files/invoice%20may.pdf'),
      input(/^Attachment 1 file name/, ''),
      input(/^Attachment 1 MIME type/, ''),
      confirm(/^Add another attachment/, false),
      select(/^What now/, 'send'),
    ]);
    expect((await done).attachments).toEqual([
      { url: 'https://cdn.example.com/files/invoice%20may.pdf', name: 'invoice may.pdf', type: 'application/pdf' },
    ]);
    expect(prompter.rejections).toEqual(['expected an absolute http or https URL, got "invoice.pdf"']);
  });

  it('does not ask for text when the Markdown text is given', async () => {
    const { prompter, done } = reply({ formattedText: '**Hi**', text: 'Hi', questionId: 1n }, [
      checkbox(/^Add to the reply/),
      select(/^What now/, 'send'),
    ]);
    await done;
    expect(prompter.asked).toHaveLength(2);
  });
});
