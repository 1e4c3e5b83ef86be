import { describe, expect, it } from 'vitest';
import { buildReply, type ReplyFields } from '../../src/commands/reply/build.js';
import { PayloadError, UsageError } from '../../src/errors.js';

const env = { now: new Date('2026-03-04T05:06:07.089Z'), newId: () => 'generated-id' };

describe('buildReply', () => {
  it.each<[string, ReplyFields, Record<string, unknown>]>([
    ['text', { text: 'hi' }, { text: 'hi' }],
    [
      'identifiers as exact bigints',
      { coreClientId: '9223372036854775807', questionId: '12' },
      { coreClientId: 9223372036854775807n, questionId: 12n },
    ],
    ['a non-numeric identifier kept as given for the schema to reject', { coreClientId: 'abc' }, { coreClientId: 'abc' }],
    ['session and index', { sessionId: 's-1', questionIndex: '3' }, { sessionId: 's-1', questionIndex: 3n }],
    [
      'agent targets as bigint lists',
      { code: 'SWITCH_TO_HUMAN', userIds: ['1', '2'], skillIds: ['3'], unitIds: ['4'] },
      { code: 'SWITCH_TO_HUMAN', userIds: [1n, 2n], skillIds: [3n], unitIds: [4n] },
    ],
    [
      'quick replies in the order typed',
      {
        quickReplies: [
          { type: 'CONTACT', text: 'Share phone' },
          { type: 'TEXT', text: 'No' },
        ],
      },
      {
        quickReplies: [
          { type: 'CONTACT', text: 'Share phone' },
          { type: 'TEXT', text: 'No' },
        ],
      },
    ],
    ['settings flags', { blockInput: true, masked: true }, { settings: { blockInput: true, masked: true } }],
    [
      'segments and the personal manager',
      { segments: ['region=north', 'tier=a=b'], personalManager: 'j.doe' },
      { segmentationInfo: { region: 'north', tier: 'a=b', personal_manager: 'j.doe' } },
    ],
    ['receivedAt now as a timestamp', { receivedAt: 'now' }, { receivedAt: '2026-03-04T05:06:07.089Z' }],
    ['an explicit answerId', { answerId: 'mine' }, { answerId: 'mine' }],
    ['the action', { action: 'INIT_CHAT' }, { action: 'INIT_CHAT' }],
  ])('sets %s from flags', async (_name, fields, expected) => {
    const built = await buildReply(undefined, fields, env);
    expect(built.payload).toMatchObject(expected);
  });

  it('generates an answerId when none is given and says so', async () => {
    const built = await buildReply(undefined, { text: 'hi' }, env);
    expect(built.payload.answerId).toBe('generated-id');
    expect(built.answerIdGenerated).toBe(true);
    expect(built.notes.join('\n')).toContain('answerId generated');
  });

  it("keeps the file's answerId", async () => {
    const built = await buildReply({ text: 'hi', answerId: 'from-file' }, {}, env);
    expect(built.answerId).toBe('from-file');
    expect(built.answerIdGenerated).toBe(false);
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['a number', 5],
    ['a long number', 9223372036854775807n],
    ['an object', { id: 'a-1' }],
    ['a list', ['a-1']],
  ])("leaves a file's answerId that is %s to the schema, and makes no string of it", async (_case, answerId) => {
    const built = await buildReply({ text: 'hi', answerId }, {}, env);
    expect(built.payload.answerId).toBe(answerId);
    expect(built.answerId).toBeNull();
    expect(built.answerIdGenerated).toBe(false);
  });

  it("lets flags override the file's fields and keeps the rest", async () => {
    const built = await buildReply(
      { text: 'old', coreClientId: 1n, quickReplies: [{ type: 'TEXT', text: 'a' }] },
      { text: 'new', quickReplies: [{ type: 'TEXT', text: 'b' }] },
      env,
    );
    expect(built.payload).toMatchObject({ text: 'new', coreClientId: 1n, quickReplies: [{ type: 'TEXT', text: 'b' }] });
  });

  it("merges --segment into the file's segmentationInfo", async () => {
    const built = await buildReply({ segmentationInfo: { a: '1' } }, { segments: ['b=2'] }, env);
    expect(built.payload.segmentationInfo).toEqual({ a: '1', b: '2' });
  });

  it('fills text with a plain-text rendering of formattedText when text is absent', async () => {
    const built = await buildReply(undefined, { markdown: '**Hello** _there_, see [docs](https://example.com)' }, env);
    expect(built.payload.formattedText).toBe('**Hello** _there_, see [docs](https://example.com)');
    expect(built.payload.text).toBe('Hello there, see docs (https://example.com)');
    expect(built.notes.join('\n')).toContain('plain-text rendering');
  });

  it('leaves text alone when both text and Markdown are given', async () => {
    const built = await buildReply(undefined, { text: 'plain', markdown: '**bold**' }, env);
    expect(built.payload.text).toBe('plain');
  });

  it.each([
    ['https://cdn.example.com/files/cat.png', { name: 'cat.png', type: 'image/png' }],
    ['https://cdn.example.com/docs/report%20Q1.pdf?sig=1', { name: 'report Q1.pdf', type: 'application/pdf' }],
    ['https://cdn.example.com/download/12345', { name: '12345' }],
  ])('fills the name and type of --attachment %s', async (url, expected) => {
    const built = await buildReply(undefined, { attachments: [url] }, env);
    expect(built.payload.attachments).toEqual([{ url, ...expected }]);
  });

  it('rejects a file that is not an object', async () => {
    await expect(buildReply([1, 2], {}, env)).rejects.toBeInstanceOf(PayloadError);
  });

  it('rejects a --segment without "="', async () => {
    await expect(buildReply(undefined, { segments: ['novalue'] }, env)).rejects.toBeInstanceOf(UsageError);
  });
});

describe('core reply --code', () => {
  it('offers exactly the codes the payload schema accepts', async () => {
    const { CODES } = await import('../../src/payload/index.js');
    const { replyCommand } = await import('../../src/commands/reply/command.js');
    const { createContext } = await import('../../src/context.js');
    const { PassThrough } = await import('node:stream');
    const streams = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough() };
    const cmd = replyCommand({ ctx: createContext({ streams, env: {}, cwd: '/' }), exitCode: undefined });
    const code = cmd.options.find((o) => o.long === '--code');
    expect([...(code?.argChoices ?? [])].sort()).toEqual([...CODES].sort());
  });
});
