import { describe, expect, it } from 'vitest';
import { atPointer, DEFAULT_WEBHOOK_MAP, readDelivery, webhookMapOf } from '../../src/bridge/map.js';

/** Where a bridge reads a customer message in the platform's webhook (docs/bridge.md, "The mapping"). */

const sandboxFormat = (message: Record<string, unknown>) =>
  Buffer.from(
    JSON.stringify({
      type: 'MESSAGE',
      tenant: 'acme',
      message: {
        questionId: 9001,
        questionIndex: 1,
        sessionId: 's-1',
        coreClientId: 77,
        clientId: null,
        type: 'TEXT',
        channel: 'WEB',
        text: 'Hi',
        ...message,
      },
    }),
  );

describe('JSON pointers', () => {
  it.each([
    ['', { a: 1 }, { a: 1 }],
    ['/a', { a: 1 }, 1],
    ['/a/b', { a: { b: 'x' } }, 'x'],
    ['/a/0', { a: ['first'] }, 'first'],
    ['/a~1b', { 'a/b': 2 }, 2],
    ['/a~0b', { 'a~b': 3 }, 3],
    ['/missing', { a: 1 }, undefined],
    ['/a/1', { a: ['only'] }, undefined],
    ['/constructor', {}, undefined],
  ])('%s names %j in %j', (pointer, document, expected) => {
    expect(atPointer(document, pointer)).toEqual(expected);
  });
});

describe('a mapping file', () => {
  it('fills every field it leaves out with the sandbox format', () => {
    expect(webhookMapOf({ text: '/body/words' })).toEqual({ ok: true, map: { ...DEFAULT_WEBHOOK_MAP, text: '/body/words' } });
    expect(webhookMapOf({})).toEqual({ ok: true, map: DEFAULT_WEBHOOK_MAP });
  });

  it.each([
    [{ txt: '/a' }, /unknown field txt/],
    [{ text: 'body/words' }, /JSON pointer/],
    [{ text: '/a~2' }, /JSON pointer/],
    [{ text: 7 }, /JSON pointer string/],
    [[], /mapping of/],
  ])('refuses %j', (raw, message) => {
    const read = webhookMapOf(raw);
    expect(read.ok).toBe(false);
    expect(JSON.stringify(!read.ok && read.problems)).toMatch(message);
  });
});

describe('a delivery read as a customer message', () => {
  it('reads the sandbox format, identifiers exact past 2^53', () => {
    const read = readDelivery(
      Buffer.from(
        '{"message":{"questionId":9007199254740993,"questionIndex":2,"sessionId":"s","coreClientId":9223372036854775807,"clientId":"c-1","type":"EMAIL","channel":"email","text":"Hi"}}',
      ),
      DEFAULT_WEBHOOK_MAP,
    );
    expect(read).toEqual({
      ok: true,
      message: {
        questionId: 9007199254740993n,
        questionIndex: 2n,
        sessionId: 's',
        coreClientId: 9223372036854775807n,
        clientId: 'c-1',
        channel: 'EMAIL',
        questionType: 'EMAIL',
        text: 'Hi',
      },
    });
  });

  it('reads another platform through a mapping, identifiers written as strings too', () => {
    const body = Buffer.from(
      JSON.stringify({ q: { id: '42', thread: 't-9', from: { id: '5' } }, kind: 'TEXT', via: 'IM', content: { body: 'Hello' } }),
    );
    const map = webhookMapOf({
      questionId: '/q/id',
      sessionId: '/q/thread',
      coreClientId: '/q/from/id',
      questionIndex: '/q/index',
      clientId: '/q/from/external',
      channel: '/via',
      type: '/kind',
      text: '/content/body',
    });
    expect(map.ok && readDelivery(body, map.map)).toEqual({
      ok: true,
      message: {
        questionId: 42n,
        sessionId: 't-9',
        coreClientId: 5n,
        questionIndex: 1n,
        clientId: null,
        channel: 'IM',
        questionType: 'TEXT',
        text: 'Hello',
      },
    });
  });

  it.each([
    ['a body that is not JSON', Buffer.from('{"message":'), /not JSON/],
    ['no questionId', sandboxFormat({ questionId: undefined }), /questionId: nothing at \/message\/questionId/],
    ['a fractional questionId', sandboxFormat({ questionId: 1.5 }), /questionId at \/message\/questionId: not an integer/],
    ['an empty sessionId', sandboxFormat({ sessionId: '' }), /sessionId .*not a non-empty string/],
    ['an unknown channel', sandboxFormat({ channel: 'FAX' }), /channel .*not a channel/],
    ['an unknown type', sandboxFormat({ type: 'VOICE' }), /type .*not TEXT or EMAIL/],
    ['a text that is a number', sandboxFormat({ text: 5 }), /text .*not a string/],
  ])('says why it cannot read %s', (_, body, problem) => {
    const read = readDelivery(body, DEFAULT_WEBHOOK_MAP);
    expect(read.ok).toBe(false);
    expect(!read.ok && read.problem).toMatch(problem);
  });
});
