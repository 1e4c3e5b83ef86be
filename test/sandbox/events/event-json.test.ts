import { describe, expect, it } from 'vitest';
import { stringifyJson } from '../../../src/payload/json.js';
import {
  eventJson,
  EventReadError,
  EVENT_TYPES,
  fieldsOf,
  parseEvent,
  parseWrittenEvent,
  readEvent,
} from '../../../src/sandbox/event-json.js';
import type { EventType } from '../../../src/sandbox/events.js';
import { anEvent, oneOfEach } from '../../helpers/events.js';

/**
 * The JSON form of an event (src/sandbox/event-json.ts): what the event stream, the listings and a log
 * file hold. An event read back is the event written, identifiers exact and numbers numbers again;
 * a value that is not an event is refused, naming the field.
 */

describe('an event written as JSON and read back', () => {
  it.each(oneOfEach().map((event) => [event.type, event] as const))('is the same %s', (_, event) => {
    expect(parseEvent(eventJson(event))).toEqual(event);
  });

  it('keeps identifiers past 2^53 exact, and gives numbers back as numbers', () => {
    const event = anEvent('customer.message', {
      seq: 9_007_199_254_740_991,
      coreClientId: 9223372036854775807n,
      questionId: 9007199254740993n,
    });
    const text = eventJson(event);
    expect(text).toContain('"coreClientId":9223372036854775807');
    const read = parseEvent(text);
    expect(read).toMatchObject({ seq: 9_007_199_254_740_991, coreClientId: 9223372036854775807n, questionId: 9007199254740993n });
    expect(typeof read.seq).toBe('number');
  });

  it('reads the numbers of an event given as numbers too (a reader that did not keep them as bigints)', () => {
    const event = anEvent('webhook.attempt');
    const plain = JSON.parse(JSON.stringify(event, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))) as unknown;
    expect(readEvent(plain)).toEqual(event);
  });

  it('names every field of each type: the fields an event of that type has', () => {
    expect(EVENT_TYPES).toEqual(oneOfEach().map((event) => event.type));
    for (const event of oneOfEach()) expect(['type', ...fieldsOf(event.type)].sort()).toEqual(Object.keys(event).sort());
  });

  it('keeps fields its type does not have, for a reader of a later sandbox', () => {
    const text = stringifyJson({ ...anEvent('sandbox.reset'), later: 1n });
    expect(parseEvent(text)).toMatchObject({ type: 'sandbox.reset', later: 1n });
  });
});

describe('a value that is not an event', () => {
  const reset = () => ({ ...anEvent('sandbox.reset', { seq: 3 }) }) as Record<string, unknown>;
  const answer = () => ({ ...anEvent('bot.answer', { seq: 3 }) }) as Record<string, unknown>;
  it.each<[string, unknown, string]>([
    ['not an object', [1, 2], 'an event is a JSON object'],
    ['null', null, 'an event is a JSON object'],
    ['without a type', { seq: 1n }, 'type: absent is not a type of event'],
    ['of a type the sandbox has not', { ...reset(), type: 'sandbox.exploded' }, 'type: "sandbox.exploded" is not a type of event'],
    ['without a field of its type', (({ time: _t, ...rest }) => rest)(reset()), 'time: absent: must be a string'],
    ['with a seq that is a string', { ...reset(), seq: '3' }, 'seq: "3": must be a number'],
    ['with a seq past 2^53', { ...reset(), seq: 9007199254740992n }, 'seq: 9007199254740992: must be a number'],
    ['with a null where none may be', { ...reset(), tenant: null }, 'tenant: null: must be a string'],
    ['with a value not among those of the field', { ...answer(), notDelivered: 'lost' }, 'notDelivered: "lost": must be one of'],
    ['with an identifier that is not an integer', { ...answer(), coreClientId: 1.5 }, 'coreClientId: 1.5: must be an integer or null'],
    [
      'with warnings that are not problems',
      { ...answer(), warnings: [{ path: 'a' }] },
      'warnings: [{"path":"a"}]: must be an array of {path, message}',
    ],
    ['without the body', (({ body: _b, ...rest }) => rest)(answer()), 'body: absent: must be any value'],
    [
      'with a long wrong value, cut',
      { ...answer(), addressedBy: 'x'.repeat(100) },
      `addressedBy: "${'x'.repeat(59)}...: must be an array of strings`,
    ],
  ])('is refused when %s', (_, value, message) => {
    expect(() => readEvent(value)).toThrow(EventReadError);
    expect(() => readEvent(value)).toThrow(message);
  });

  it.each<[string, EventType, Record<string, unknown>]>([
    ['the limit of a safe number, 2^53 - 1', 'sandbox.reset', { seq: 9007199254740991n }],
    ['a null identifier where one may be null', 'bot.answer', { questionId: null }],
    ['an empty list of identifiers', 'handover', { userIds: [] }],
  ])('is read with %s', (_, type, fields) => {
    expect(() => readEvent({ ...anEvent(type), ...fields })).not.toThrow();
  });

  it('is refused for a JSON text that does not parse, by the JSON reader', () => {
    expect(() => parseEvent('{"type": "sandbox.reset",')).toThrow(SyntaxError);
  });
});

describe('a line of a state file, read by the path for lines the sandbox wrote (parseWrittenEvent)', () => {
  it.each(oneOfEach().map((event) => [event.type, event] as const))('gives what parseEvent gives for %s', (_, event) => {
    const text = eventJson(event);
    expect(parseWrittenEvent(text)).toEqual(parseEvent(text));
    expect(parseWrittenEvent(text)).toEqual(event);
  });

  it.each<[string, Record<string, unknown>]>([
    ['integers nested in a body, as bigints', { body: { questionId: 42n, list: [1n, { deep: 7n }], fraction: 1.5, none: null } }],
    ['identifiers past 2^53, exact', { coreClientId: 9223372036854775807n, questionId: 9007199254740993n }],
    ['the largest identifier a number holds exactly, 2^53 - 1', { questionId: 9007199254740991n }],
    ['a text holding a run of 16 digits', { body: { text: 'card 1234567812345678' } }],
    ['a negative integer and zero', { body: { below: -5n, zero: 0n } }],
  ])('gives what parseEvent gives for %s', (_, fields) => {
    const text = stringifyJson({ ...anEvent('bot.answer', { seq: 12 }), ...fields });
    const read = parseWrittenEvent(text);
    expect(read).toEqual(parseEvent(text));
    expect(read).toMatchObject(fields);
    expect(typeof read.seq).toBe('number');
  });

  it.each<[string, string, new (...args: never[]) => Error, string]>([
    ['a line cut short', '{"type": "sandbox.reset",', SyntaxError, 'Quoted object key expected'],
    ['a field of the wrong type', stringifyJson({ ...anEvent('sandbox.reset'), seq: '3' }), EventReadError, 'seq: "3": must be a number'],
    ['an identifier with a fraction', stringifyJson({ ...anEvent('bot.answer'), coreClientId: 1.5 }), EventReadError, 'coreClientId: 1.5'],
    ['a seq past 2^53', stringifyJson({ ...anEvent('sandbox.reset'), seq: 9007199254740992n }), EventReadError, 'seq: 9007199254740992'],
    ['not an object', '[1,2]', EventReadError, 'an event is a JSON object'],
  ])('refuses %s as parseEvent does', (_, text, kind, message) => {
    expect(() => parseWrittenEvent(text)).toThrow(kind);
    expect(() => parseWrittenEvent(text)).toThrow(message);
    expect(() => parseEvent(text)).toThrow(kind);
  });
});
