import { describe, expect, it } from 'vitest';
import { validateGreeting, validateReply } from '../../src/payload/index.js';
import { expectOnly, expectValid, fullGreeting, fullReply, problemsOf, withValue } from './fixtures.js';

/** The bot answer and the greeting share the quick reply, header/footer and list shapes ("same shape as above"). */
const payloads = [
  { payload: 'bot answer', base: fullReply, validate: (p: unknown) => validateReply(p) },
  { payload: 'greeting', base: fullGreeting, validate: (p: unknown) => validateGreeting(p) },
];

describe.each(payloads)('in a $payload', ({ base, validate }) => {
  describe('the quickRepliesHeaderFooter header', () => {
    const header = (entries: unknown[]) => withValue(base(), ['quickRepliesHeaderFooter', 'header'], entries);

    it.each([
      ['text only', [{ text: 'Hi' }]],
      ['an image only', [{ imageUrl: 'https://x.io/i.png' }]],
      ['a document only', [{ documentUrl: 'https://x.io/d.pdf', documentName: 'd.pdf' }]],
      ['a video only', [{ videoUrl: 'https://x.io/v.mp4' }]],
    ])('passes with no warning carrying %s', (_, entries) => {
      const result = validate(header(entries));
      expectValid(result);
      expect(result.warnings).toEqual([]);
    });

    it.each([
      ['in one entry', [{ text: 'Hi', imageUrl: 'i', documentUrl: 'd', videoUrl: 'v' }]],
      ['across entries', [{ text: 'Hi' }, { imageUrl: 'i' }, { documentName: 'd.pdf' }, { videoUrl: 'v' }]],
    ])('fails carrying text, image, document and video all at once %s', (_, entries) => {
      expectOnly(
        validate(header(entries)),
        'quickRepliesHeaderFooter.header',
        'carries text, image, document and video at once; the header cannot send all four at the same time',
      );
    });

    it.each([
      ['text and image', [{ text: 'Hi', imageUrl: 'i' }], 'text and image'],
      ['image, document and video', [{ imageUrl: 'i' }, { documentUrl: 'd' }, { videoUrl: 'v' }], 'image, document and video'],
    ])('passes with a warning mixing %s', (_, entries, kinds) => {
      const result = validate(header(entries));
      expectValid(result);
      expect(result.warnings).toEqual([
        {
          path: 'quickRepliesHeaderFooter.header',
          message: `mixes ${kinds}; the API forbids only all four kinds at once and does not say how a mix is shown`,
        },
      ]);
    });

    it('does not also warn when it fails for all four kinds', () => {
      const result = validate(header([{ text: 'a', imageUrl: 'i', documentUrl: 'd', videoUrl: 'v' }]));
      expect(problemsOf(result).map((problem) => problem.path)).toEqual(['quickRepliesHeaderFooter.header']);
      expect(result.warnings).toEqual([]);
    });
  });

  describe('the quickRepliesHeaderFooter footer', () => {
    it('requires text in each entry', () => {
      expectOnly(
        validate(withValue(base(), ['quickRepliesHeaderFooter', 'footer'], [{}])),
        'quickRepliesHeaderFooter.footer[0].text',
        'required',
      );
    });
  });

  describe('the messageListPicker', () => {
    const picker = (p: unknown) => withValue(base(), ['messageListPicker'], p);
    const item = (identifier: string) => ({ title: 'Item', identifier });

    it('passes with only a title and one section of one item', () => {
      expectValid(validate(picker({ title: 'Open', sections: [{ items: [item('a')] }] })));
    });

    it.each([
      ['no title', { sections: [{ items: [item('a')] }] }, 'messageListPicker.title', 'required'],
      ['no sections', { title: 'Open' }, 'messageListPicker.sections', 'required'],
      ['no section', { title: 'Open', sections: [] }, 'messageListPicker.sections', 'must hold at least one item'],
      ['a section without items', { title: 'Open', sections: [{ title: 'S' }] }, 'messageListPicker.sections[0].items', 'required'],
      [
        'a section with no item',
        { title: 'Open', sections: [{ items: [] }] },
        'messageListPicker.sections[0].items',
        'must hold at least one item',
      ],
      [
        'an item without a title',
        { title: 'Open', sections: [{ items: [{ identifier: 'a' }] }] },
        'messageListPicker.sections[0].items[0].title',
        'required',
      ],
      [
        'an item without an identifier',
        { title: 'Open', sections: [{ items: [{ title: 'I' }] }] },
        'messageListPicker.sections[0].items[0].identifier',
        'required',
      ],
      [
        'an empty identifier',
        { title: 'Open', sections: [{ items: [item('')] }] },
        'messageListPicker.sections[0].items[0].identifier',
        'must not be empty',
      ],
      [
        'a header without text',
        { title: 'Open', header: {}, sections: [{ items: [item('a')] }] },
        'messageListPicker.header.text',
        'required',
      ],
    ])('fails with %s', (_, value, path, message) => {
      expectOnly(validate(picker(value)), path, message);
    });

    it('fails on an identifier repeated in the same section, at the second, naming the first', () => {
      expectOnly(
        validate(picker({ title: 'Open', sections: [{ items: [item('a'), item('b'), item('a')] }] })),
        'messageListPicker.sections[0].items[2].identifier',
        'identifier "a" is already used at messageListPicker.sections[0].items[0].identifier; identifiers must be unique across the message',
      );
    });

    it('fails on an identifier repeated across sections', () => {
      expectOnly(
        validate(picker({ title: 'Open', sections: [{ items: [item('a'), item('b')] }, { items: [item('c'), item('b')] }] })),
        'messageListPicker.sections[1].items[1].identifier',
        'identifier "b" is already used at messageListPicker.sections[0].items[1].identifier; identifiers must be unique across the message',
      );
    });

    it('compares identifiers exactly, so case makes them different', () => {
      expectValid(validate(picker({ title: 'Open', sections: [{ items: [item('a'), item('A')] }] })));
    });

    it('reports every repeat of an identifier, each naming the first', () => {
      expect(problemsOf(validate(picker({ title: 'Open', sections: [{ items: [item('x'), item('x'), item('x')] }] })))).toEqual([
        {
          path: 'messageListPicker.sections[0].items[1].identifier',
          message:
            'identifier "x" is already used at messageListPicker.sections[0].items[0].identifier; identifiers must be unique across the message',
        },
        {
          path: 'messageListPicker.sections[0].items[2].identifier',
          message:
            'identifier "x" is already used at messageListPicker.sections[0].items[0].identifier; identifiers must be unique across the message',
        },
      ]);
    });
  });

  describe('settings.blockInput works only with quick replies (chatbot rule 4)', () => {
    const warning = {
      path: 'settings.blockInput',
      message: "has an effect only with quick replies, and this message has none (the API's chatbot rule 4)",
    };

    it('warns when true without quick replies', () => {
      const result = validate(withValue(base(), ['quickReplies'], undefined));
      expectValid(result);
      expect(result.warnings).toEqual([warning]);
    });

    it('warns when true with an empty list of quick replies', () => {
      expect(validate(withValue(base(), ['quickReplies'], [])).warnings).toEqual([warning]);
    });

    it('does not warn with quick replies', () => {
      const result = validate(base());
      expectValid(result);
      expect(result.warnings).toEqual([]);
    });

    it('does not warn when false', () => {
      const result = validate(withValue(withValue(base(), ['quickReplies'], undefined), ['settings', 'blockInput'], false));
      expectValid(result);
      expect(result.warnings).toEqual([]);
    });
  });
});

describe('an unknown field anywhere is an error naming it, with the closest known field', () => {
  const cases = [
    { where: 'at the root', path: ['shownText'], known: undefined },
    { where: 'at the root, by case', path: ['coreClientID'], known: 'coreClientId' },
    { where: 'at the root, in snake case', path: ['core_client_id'], known: 'coreClientId' },
    { where: 'at the root, one letter off', path: ['quickReply'], known: 'quickReplies' },
    { where: 'in a quick reply', path: ['quickReplies', 0, 'shownText'], known: 'shown_text' },
    { where: 'in a quick reply, letters swapped', path: ['quickReplies', 0, 'tpye'], known: 'type' },
    { where: 'in an attachment', path: ['attachments', 0, 'nmae'], known: 'name' },
    { where: 'in the settings', path: ['settings', 'blockinput'], known: 'blockInput' },
    { where: 'in a header entry', path: ['quickRepliesHeaderFooter', 'header', 0, 'imageURL'], known: 'imageUrl' },
    { where: 'in a footer entry', path: ['quickRepliesHeaderFooter', 'footer', 0, 'txt'], known: 'text' },
    { where: 'in quickRepliesHeaderFooter', path: ['quickRepliesHeaderFooter', 'headers'], known: 'header' },
    { where: 'in the list', path: ['messageListPicker', 'titel'], known: 'title' },
    { where: 'in the list header', path: ['messageListPicker', 'header', 'txt'], known: 'text' },
    { where: 'in a list section', path: ['messageListPicker', 'sections', 0, 'item'], known: 'items' },
    { where: 'in a list item', path: ['messageListPicker', 'sections', 0, 'items', 0, 'subtitle'], known: 'subTitle' },
    { where: 'in a list item, far from any field', path: ['messageListPicker', 'sections', 0, 'items', 0, 'colour'], known: undefined },
  ];

  const written = (path: (string | number)[]) => path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');

  it.each(cases)('$where: $path.0 …', ({ path, known }) => {
    expectOnly(
      validateReply(withValue(fullReply(), path, 'x')),
      written(path),
      known ? `unknown field; did you mean "${known}"?` : 'unknown field',
    );
  });

  it('reports each unknown field of one object separately', () => {
    expect(problemsOf(validateReply({ ...fullReply(), foo: 1n, bar: 2n }))).toEqual([
      { path: 'bar', message: 'unknown field' },
      { path: 'foo', message: 'unknown field' },
    ]);
  });

  it('rejects action in a greeting, whose table does not list it', () => {
    expectOnly(validateGreeting({ ...fullGreeting(), action: 'INIT_CHAT' }), 'action', 'unknown field');
  });

  it('rejects a key named like a property of every object', () => {
    expectOnly(validateReply({ ...fullReply(), constructor: 1n }), 'constructor', 'unknown field');
  });
});
