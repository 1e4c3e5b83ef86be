import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { longSchema } from '../../src/payload/long.js';
import { childOf, finishProblems, knownFields, maxLengthOf, toProblems, validateField, validateWith } from '../../src/payload/validate.js';
import { nonEmpty } from '../../src/payload/checks.js';

/**
 * How src/payload/validate.ts walks a schema: through the wrappers that do not change a value's
 * shape, into fields, items, records and unions; how it turns numbers into longs; and how it
 * writes the problems of a failed parse.
 */

const five = () => z.string().check(z.maxLength(5));

describe('a wrapper that does not change a value’s shape is looked through', () => {
  it.each([
    ['optional', z.optional(five())],
    ['nullable', z.nullable(five())],
    ['default', z._default(five(), 'x')],
    ['prefault', z.prefault(five(), 'x')],
    ['nonoptional', z.nonoptional(z.optional(five()))],
    ['readonly', z.readonly(five())],
    ['catch', z.catch(five(), 'x')],
    ['pipe (its input side)', z.pipe(five(), z.string())],
  ])('%s: the limit of the string inside is read', (_, schema) => {
    expect(maxLengthOf(schema as z.ZodMiniType)).toBe(5);
  });

  it.each([
    [32, 5],
    [33, undefined],
  ])('through %s wrappers at most: the limit is %s', (depth, expected) => {
    let schema: z.ZodMiniType = five();
    for (let i = 0; i < depth; i++) schema = z.optional(schema);
    expect(maxLengthOf(schema)).toBe(expected);
  });

  it.each([
    ['two limits, the tighter first', z.string().check(z.maxLength(5), z.maxLength(7)), 5],
    ['two limits, the tighter last', z.string().check(z.maxLength(7), z.maxLength(5)), 5],
    ['a lower bound only', z.string().check(z.minLength(3)), undefined],
    ['no bound', z.string(), undefined],
    ['an array with a maximum length, which is no string field', z.array(z.string()).check(z.maxLength(3)), undefined],
    ['a maxLength in the metadata that is not a number', z.string().check(z.meta({ maxLength: 'ten' as never }), z.maxLength(9)), 9],
  ])('%s', (_, schema, expected) => {
    expect(maxLengthOf(schema)).toBe(expected);
  });
});

describe('the schema one step into a value (childOf), and the fields an object knows (knownFields)', () => {
  const item = z.strictObject({ name: z.string(), size: z.number() });
  const union = z.union([z.string(), item]);

  it.each([
    ['a field of an object', item, 'name', item.shape.name],
    ['an inherited name is no field', item, 'toString', undefined],
    ['an index is no field', item, 0, undefined],
    ['an index is no field, even of an object with a key "0"', z.strictObject({ '0': z.string() }), 0, undefined],
    ['an item of an array', z.array(item), 3, item],
    ['a value of a record', z.record(z.string(), item), 'any', item],
    ['through a union, the first form that has the step', union, 'size', item.shape.size],
    ['through a union with no form that has it', union, 'colour', undefined],
    ['nothing inside a string', z.string(), 'x', undefined],
  ] as const)('%s', (_, schema, segment, expected) => {
    expect(childOf(schema, segment)).toBe(expected);
  });

  it.each([
    ['the object itself', item, [], ['name', 'size']],
    ['an item of an array', z.array(item), [0], ['name', 'size']],
    ['a value of a record', z.object({ map: z.record(z.string(), item) }), ['map', 'k'], ['name', 'size']],
    ['a union, by its object form', union, [], ['name', 'size']],
    ['a union with no object form', z.union([z.string(), z.number()]), [], []],
    ['a path that leads nowhere', item, ['name', 'deeper'], []],
    ['a path through a missing field', item, ['missing', 'deeper'], []],
    ['a string', z.string(), [], []],
  ] as const)('%s', (_, schema, path, expected) => {
    expect(knownFields(schema, path)).toEqual(expected);
  });
});

describe('numbers where longs belong become longs before the check', () => {
  const schema = z.strictObject({
    id: z.optional(longSchema),
    list: z.optional(z.array(longSchema)),
    inner: z.optional(z.strictObject({ id: longSchema, name: z.optional(z.string()) })),
    nested: z.optional(z.array(z.array(longSchema))),
    note: z.optional(z.string()),
  });

  it.each([
    ['a field', { id: 1 }, { id: 1n }],
    ['the items of an array', { list: [1, 2n, 3] }, { list: [1n, 2n, 3n] }],
    ['a field of an object inside', { inner: { id: 4, name: 'x' } }, { inner: { id: 4n, name: 'x' } }],
    ['arrays inside arrays', { nested: [[1], [2n, 3]] }, { nested: [[1n], [2n, 3n]] }],
    ['nothing else', { note: 'x' }, { note: 'x' }],
  ])('%s', (_, input, value) => {
    const copy = structuredClone(input);
    const result = validateWith(schema, input);
    expect(result).toEqual({ ok: true, value, warnings: [] });
    expect(input).toEqual(copy);
  });

  it('adds no field that was not there', () => {
    const result = validateWith(schema, { note: 'x' });
    expect(result.ok && Object.keys(result.value)).toEqual(['note']);
  });

  it('reads a long from a number however deep it is', () => {
    let deep: z.ZodMiniType = longSchema;
    let input: unknown = 1;
    let value: unknown = 1n;
    for (let i = 0; i < 40; i++) {
      deep = z.array(deep);
      input = [input];
      value = [value];
    }
    expect(validateWith(deep, input)).toEqual({ ok: true, value, warnings: [] });
  });

  it('leaves a record of longs as it is', () => {
    expect(validateWith(z.record(z.string(), longSchema), { a: 1n })).toEqual({ ok: true, value: { a: 1n }, warnings: [] });
  });

  it('reports an array given for an object that holds longs', () => {
    expect(validateField(schema, [1])).toBe('expected an object, got an array');
  });

  it('leaves a number that is not a safe integer, and a value where an object or array belongs, to the check', () => {
    expect(validateField(schema, { id: 1.5 })).toBe('id: expected an integer from 0 to 9,223,372,036,854,775,807, got 1.5');
    expect(validateField(schema, { list: 5 })).toBe('list: expected an array, got 5');
    expect(validateField(schema, { inner: [4] })).toBe('inner: expected an object, got an array');
  });
});

describe('the problems of a failed parse', () => {
  it('a key a record refuses is named as the key', () => {
    const schema = z.record(z.string().check(nonEmpty()), z.string());
    expect(validateWith(schema, { '': 'x' })).toEqual({
      ok: false,
      problems: [{ path: '[""]', message: 'the key must not be empty' }],
      warnings: [],
    });
  });

  it('a refused key with no reason given', () => {
    expect(toProblems(z.string(), [{ code: 'invalid_key', origin: 'record', issues: [], path: ['a'], input: 'a', message: 'x' }])).toEqual([
      { path: 'a', message: 'the key invalid' },
    ]);
  });

  it('a custom problem without a template keeps its message', () => {
    expect(toProblems(z.string(), [{ code: 'custom', path: ['a', 0], message: 'no good', input: 1, params: { template: 1 } }])).toEqual([
      { path: 'a[0]', message: 'no good' },
    ]);
  });

  it('are sorted by path, indexes as numbers, in the order found for one path, without repeats', () => {
    expect(
      finishProblems([
        { path: ['b'], message: 'second' },
        { path: ['a', 10], message: 'x' },
        { path: ['a', 2], message: 'y' },
        { path: ['b'], message: 'first' },
        { path: ['a', 2], message: 'y' },
        { path: [], message: 'top' },
      ]),
    ).toEqual([
      { path: '', message: 'top' },
      { path: 'a[2]', message: 'y' },
      { path: 'a[10]', message: 'x' },
      { path: 'b', message: 'second' },
      { path: 'b', message: 'first' },
    ]);
  });
});

describe('a value no JSON holds gives a problem, not a crash', () => {
  const throwing = (thrown: unknown) =>
    Object.defineProperty({ text: 'Hi' }, 'coreClientId', {
      enumerable: true,
      get() {
        throw thrown;
      },
    });

  it.each([
    ['an Error', new Error('boom'), 'could not be validated: boom'],
    ['a string', 'boom', 'could not be validated: boom'],
    [
      'a value that cannot be written',
      {
        toString() {
          throw new Error('again');
        },
      },
      'could not be validated: unknown error',
    ],
  ])('a getter that throws %s', (_, thrown, message) => {
    const schema = z.strictObject({ text: z.string(), coreClientId: longSchema });
    expect(validateWith(schema, throwing(thrown))).toEqual({ ok: false, problems: [{ path: '', message }], warnings: [] });
  });
});
