import { describe, expect, it } from 'vitest';
import { validateReply } from '../../src/payload/index.js';
import { expectOnly, expectValid, fullReply, problemsOf, withValue } from './fixtures.js';

const hi = (fields: Record<string, unknown>) => ({ text: 'Hi', ...fields });

describe('a minimal bot answer', () => {
  it('passes with text and one addressee', () => {
    const result = validateReply({ text: 'Hi', coreClientId: 1n });
    expectValid(result);
    expect(result.ok && result.warnings).toEqual([]);
  });

  it('passes with every field of the API', () => {
    expectValid(
      validateReply({
        ...fullReply(),
        formattedText: '**Hi**',
        answerId: '3f1c2b9e-6d7a-4a51-9c1e-0b7c6c2f8d11',
        questionId: 2n,
        receivedAt: '2026-01-31T09:30:00.000Z',
        action: 'INIT_CHAT',
        segmentationInfo: { personal_manager: 'j.doe', region: 'north' },
        code: 'SUCCESS',
      }),
    );
  });
});

describe('text and formattedText (chatbot rule 3)', () => {
  it.each([
    ['text alone', { text: 'Hi' }],
    ['formattedText alone', { formattedText: '**Hi**' }],
    ['both', { text: 'Hi', formattedText: '**Hi**' }],
  ])('pass with %s', (_, fields) => {
    expectValid(validateReply({ coreClientId: 1n, ...fields }));
  });

  it('fail with neither, at text', () => {
    expectOnly(validateReply({ coreClientId: 1n }), 'text', "required unless formattedText is given (the API's chatbot rule 3)");
  });

  it.each(['text', 'formattedText'])('%s must not be empty', (field) => {
    expectOnly(validateReply({ text: 'Hi', formattedText: 'Hi', coreClientId: 1n, [field]: '' }), field, 'must not be empty');
  });

  it('text must be a string', () => {
    expectOnly(validateReply({ text: 42n, coreClientId: 1n }), 'text', 'expected a string, got 42');
  });
});

describe('addressing: at least one of coreClientId, questionId, sessionId with questionIndex, clientId', () => {
  it.each([
    ['coreClientId', { coreClientId: 1n }],
    ['questionId', { questionId: 1n }],
    ['sessionId with questionIndex', { sessionId: 's-1', questionIndex: 0n }],
    ['clientId', { clientId: 'ext-1' }],
    ['all of them', { coreClientId: 1n, questionId: 1n, sessionId: 's-1', questionIndex: 3n, clientId: 'ext-1' }],
  ])('passes by %s', (_, fields) => {
    expectValid(validateReply(hi(fields)));
  });

  it('fails with none, on the whole value', () => {
    expectOnly(validateReply(hi({})), '', 'no addressee: give coreClientId, questionId, sessionId with questionIndex, or clientId');
  });

  it('fails with sessionId alone, asking for questionIndex', () => {
    expectOnly(
      validateReply(hi({ sessionId: 's-1' })),
      'questionIndex',
      'required with sessionId: a reply by thread gives both sessionId and questionIndex',
    );
  });

  it('fails with questionIndex alone, asking for sessionId', () => {
    expectOnly(
      validateReply(hi({ questionIndex: 1n })),
      'sessionId',
      'required with questionIndex: a reply by thread gives both sessionId and questionIndex',
    );
  });

  it('fails with sessionId and no questionIndex even when another addressee is given', () => {
    expectOnly(
      validateReply(hi({ coreClientId: 1n, sessionId: 's-1' })),
      'questionIndex',
      'required with sessionId: a reply by thread gives both sessionId and questionIndex',
    );
  });

  it('counts an invalid addressee as given, and reports only what is wrong with it', () => {
    expectOnly(
      validateReply(hi({ coreClientId: 'abc' })),
      'coreClientId',
      'expected an integer from 0 to 9,223,372,036,854,775,807, got "abc"',
    );
  });

  it.each(['sessionId', 'clientId'])('%s must not be empty', (field) => {
    expectOnly(validateReply(hi({ coreClientId: 1n, sessionId: 's', questionIndex: 0n, [field]: '' })), field, 'must not be empty');
  });
});

describe('a question that came by email (chatbot rule 2)', () => {
  const email = { email: true };
  const rule2 = "the question came by email, so the answer is addressed by sessionId and questionIndex (the API's chatbot rule 2)";

  it('passes with sessionId and questionIndex', () => {
    expectValid(validateReply(hi({ sessionId: 's-1', questionIndex: 2n }), email));
  });

  it('passes with sessionId, questionIndex and another addressee', () => {
    expectValid(validateReply(hi({ coreClientId: 1n, sessionId: 's-1', questionIndex: 2n }), email));
  });

  it('fails with coreClientId alone, asking for both', () => {
    expect(problemsOf(validateReply(hi({ coreClientId: 1n }), email))).toEqual([
      { path: 'questionIndex', message: `required: ${rule2}` },
      { path: 'sessionId', message: `required: ${rule2}` },
    ]);
  });

  it('fails with sessionId alone, asking for questionIndex', () => {
    expectOnly(validateReply(hi({ sessionId: 's-1' }), email), 'questionIndex', `required: ${rule2}`);
  });

  it('fails with questionIndex alone, asking for sessionId', () => {
    expectOnly(validateReply(hi({ questionIndex: 0n }), email), 'sessionId', `required: ${rule2}`);
  });

  it('is not required without the email option', () => {
    expectValid(validateReply(hi({ coreClientId: 1n }), { email: false }));
  });
});

describe('code', () => {
  it.each(['UNCLEAR_QUESTION', 'SWITCH_TO_HUMAN', 'SUCCESS'])('passes %s', (code) => {
    expectValid(validateReply(hi({ coreClientId: 1n, code })));
  });

  it.each([
    ['an unknown value', 'DONE', '"DONE"'],
    ['a lower-case value', 'success', '"success"'],
    ['a number', 1n, '1'],
  ])('fails %s, listing the allowed values', (_, code, shown) => {
    expectOnly(
      validateReply(hi({ coreClientId: 1n, code })),
      'code',
      `must be one of UNCLEAR_QUESTION, SWITCH_TO_HUMAN, SUCCESS, got ${shown}`,
    );
  });
});

describe('userIds, skillIds and unitIds only with code SWITCH_TO_HUMAN', () => {
  it.each(['userIds', 'skillIds', 'unitIds'])('%s passes with SWITCH_TO_HUMAN', (field) => {
    expectValid(validateReply(hi({ coreClientId: 1n, code: 'SWITCH_TO_HUMAN', [field]: [7n] })));
  });

  it.each([
    ['userIds', 'SUCCESS', 'code is "SUCCESS"'],
    ['skillIds', 'UNCLEAR_QUESTION', 'code is "UNCLEAR_QUESTION"'],
    ['unitIds', undefined, 'code is absent'],
    ['userIds', 'NOPE', 'code is "NOPE"'],
  ])('%s fails with code %s', (field, code, said) => {
    const result = validateReply(hi({ coreClientId: 1n, code, [field]: [7n] }));
    expect(problemsOf(result)).toContainEqual({ path: field, message: `only allowed with code SWITCH_TO_HUMAN, and ${said}` });
  });

  it('reports each routing field given without SWITCH_TO_HUMAN', () => {
    expect(problemsOf(validateReply(hi({ coreClientId: 1n, userIds: [1n], skillIds: [2n], unitIds: [3n] })))).toEqual([
      { path: 'skillIds', message: 'only allowed with code SWITCH_TO_HUMAN, and code is absent' },
      { path: 'unitIds', message: 'only allowed with code SWITCH_TO_HUMAN, and code is absent' },
      { path: 'userIds', message: 'only allowed with code SWITCH_TO_HUMAN, and code is absent' },
    ]);
  });
});

describe('receivedAt is exactly yyyy-MM-ddTHH:mm:ss.SSSZ', () => {
  it.each(['2026-01-31T09:30:00.000Z', '2024-02-29T23:59:59.999Z', '2000-02-29T00:00:00.000Z'])('passes %s', (receivedAt) => {
    expectValid(validateReply(hi({ coreClientId: 1n, receivedAt })));
  });

  it.each([
    ['without milliseconds', '2026-01-31T09:30:00Z'],
    ['with an offset', '2026-01-31T09:30:00.000+01:00'],
    ['with microseconds', '2026-01-31T09:30:00.000000Z'],
    ['with a lower-case z', '2026-01-31T09:30:00.000z'],
    ['as a date only', '2026-01-31'],
    ['as "now"', 'now'],
    ['empty', ''],
  ])('fails %s', (_, receivedAt) => {
    expectOnly(
      validateReply(hi({ coreClientId: 1n, receivedAt })),
      'receivedAt',
      `expected a UTC time as yyyy-MM-ddTHH:mm:ss.SSSZ, such as 2026-01-31T09:30:00.000Z, got ${JSON.stringify(receivedAt)}`,
    );
  });

  it.each([
    ['30 February', '2026-02-30T10:00:00.000Z'],
    ['29 February of a common year', '2026-02-29T10:00:00.000Z'],
    ['29 February of 1900', '1900-02-29T10:00:00.000Z'],
    ['month 13', '2026-13-01T10:00:00.000Z'],
    ['day 0', '2026-01-00T10:00:00.000Z'],
    ['31 April', '2026-04-31T10:00:00.000Z'],
    ['hour 24', '2026-01-31T24:00:00.000Z'],
    ['minute 60', '2026-01-31T10:60:00.000Z'],
    ['second 60', '2026-01-31T10:00:60.000Z'],
  ])('fails %s, which does not exist', (_, receivedAt) => {
    expectOnly(validateReply(hi({ coreClientId: 1n, receivedAt })), 'receivedAt', `not a real date and time, got "${receivedAt}"`);
  });

  it('fails a number', () => {
    expectOnly(validateReply(hi({ coreClientId: 1n, receivedAt: 1769851800000n })), 'receivedAt', 'expected a string, got 1769851800000');
  });
});

describe('segmentationInfo is a map of string to string', () => {
  it.each([
    ['personal_manager', { personal_manager: 'j.doe' }],
    ['any key', { region: 'north', tier: 'gold' }],
    ['no entries', {}],
  ])('passes with %s', (_, segmentationInfo) => {
    expectValid(validateReply(hi({ coreClientId: 1n, segmentationInfo })));
  });

  it.each([
    ['a number value', { tier: 1n }, 'segmentationInfo.tier', 'expected a string, got 1'],
    ['a null value', { tier: null }, 'segmentationInfo.tier', 'expected a string, got null'],
    ['an empty value', { tier: '' }, 'segmentationInfo.tier', 'must not be empty'],
    ['an empty key', { '': 'x' }, 'segmentationInfo[""]', 'the key must not be empty'],
    ['a key that is not a name', { 'my key': 1n }, 'segmentationInfo["my key"]', 'expected a string, got 1'],
    ['an array', ['a'], 'segmentationInfo', 'expected an object, got an array'],
  ])('fails with %s', (_, segmentationInfo, path, message) => {
    expectOnly(validateReply(hi({ coreClientId: 1n, segmentationInfo })), path, message);
  });
});

describe('action and answerId', () => {
  it('action must not be empty', () => {
    expectOnly(validateReply(hi({ coreClientId: 1n, action: '' })), 'action', 'must not be empty');
  });

  it('answerId must not be empty', () => {
    expectOnly(validateReply(hi({ coreClientId: 1n, answerId: '' })), 'answerId', 'must not be empty');
  });

  it('answerId must be a string', () => {
    expectOnly(validateReply(hi({ coreClientId: 1n, answerId: 12n })), 'answerId', 'expected a string, got 12');
  });
});

describe('settings', () => {
  it.each([
    ['blockInput', { blockInput: false }],
    ['masked', { masked: true }],
    ['nothing', {}],
  ])('passes with %s', (_, settings) => {
    expectValid(validateReply(hi({ coreClientId: 1n, settings })));
  });

  it.each([
    ['blockInput as a string', { blockInput: 'true' }, 'settings.blockInput', 'expected a boolean, got "true"'],
    ['masked as a number', { masked: 1n }, 'settings.masked', 'expected a boolean, got 1'],
    ['null', null, 'settings', 'expected an object, got null'],
  ])('fails with %s', (_, settings, path, message) => {
    expectOnly(validateReply(hi({ coreClientId: 1n, settings })), path, message);
  });
});

describe('attachments', () => {
  const attach = (attachment: unknown) => hi({ coreClientId: 1n, attachments: [attachment] });

  it.each([
    ['http', 'http://example.com/a.pdf'],
    ['https with a query', 'https://files.example.com/a.pdf?token=x'],
    ['a local host and port', 'http://localhost:8080/a.pdf'],
  ])('pass a url over %s', (_, url) => {
    expectValid(validateReply(attach({ url, name: 'a.pdf' })));
  });

  it.each([
    ['a relative path', '/files/a.pdf'],
    ['an ftp URL', 'ftp://example.com/a.pdf'],
    ['a data URL', 'data:text/plain,hi'],
    ['a word', 'file'],
    ['surrounding spaces', ' https://example.com/a.pdf'],
    ['no host', 'https://'],
    // The URL parser forgives these, but the text is what the service is sent.
    ['without the slashes after its scheme', 'http:example.com/a.pdf'],
    ['broken by a tab', 'ht\ttp://example.com/a.pdf'],
    ['broken by a newline', 'https://exam\nple.com/a.pdf'],
    ['after a control character', '\u0001https://example.com/a.pdf'],
    // Written as an http URL, but the parser refuses it: a space in the host, a bracket never closed.
    ['with a space in its host', 'https://exa mple.com/a.pdf'],
    ['with an IPv6 host never closed', 'https://[::1/a.pdf'],
  ])('fail a url that is %s', (_, url) => {
    expectOnly(
      validateReply(attach({ url, name: 'a.pdf' })),
      'attachments[0].url',
      `expected an absolute http or https URL, got ${JSON.stringify(url)}`,
    );
  });

  it('require a url', () => {
    expectOnly(validateReply(attach({ name: 'a.pdf' })), 'attachments[0].url', 'required');
  });

  it('pass the extra fields of the examples with any JSON type', () => {
    expectValid(
      validateReply(
        attach({
          url: 'https://example.com/a.png',
          name: 'a.png',
          type: 'image/png',
          size: 1024n,
          contentType: 'image/png',
          fileId: null,
          state: { uploaded: true },
          errorCode: [1n],
          errorMessage: false,
        }),
      ),
    );
  });

  it('fail when not an array', () => {
    expectOnly(validateReply(hi({ coreClientId: 1n, attachments: { url: 'x' } })), 'attachments', 'expected an array, got an object');
  });
});

describe('quick replies', () => {
  const withReply = (reply: unknown) => withValue(fullReply(), ['quickReplies'], [reply]);

  it.each([
    [
      'TEXT with every field',
      {
        type: 'TEXT',
        text: 'Yes',
        shown_text: 'I agree',
        callback_data: 'agree',
        imageUrl: 'https://x.io/i.png',
        url: 'https://x.io/f.pdf',
        payload: null,
      },
    ],
    ['CONTACT', { type: 'CONTACT', text: 'Share my phone' }],
    ['a payload of any JSON type', { type: 'TEXT', text: 'Yes', payload: { any: ['thing', 1n] } }],
  ])('pass %s', (_, reply) => {
    expectValid(validateReply(withReply(reply)));
  });

  it.each([
    ['no type', { text: 'Yes' }, 'quickReplies[0].type', 'required: one of TEXT, CONTACT'],
    ['an unknown type', { type: 'LINK', text: 'Yes' }, 'quickReplies[0].type', 'must be one of TEXT, CONTACT, got "LINK"'],
    ['no text', { type: 'TEXT' }, 'quickReplies[0].text', 'required'],
    ['a null text', { type: 'TEXT', text: null }, 'quickReplies[0].text', 'expected a string, got null'],
  ])('fail with %s', (_, reply, path, message) => {
    expectOnly(validateReply(withReply(reply)), path, message);
  });
});
