import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { segmentationInfoSchema, usableLimits } from '../../src/payload/common.js';
import { greetingSchema, reasonSchema, replySchema, validateReply } from '../../src/payload/index.js';
import { expectOnly, expectValid } from './fixtures.js';

/** The parts the three payloads share (src/payload/common.ts). */

const hi = (fields: Record<string, unknown>) => ({ text: 'Hi', coreClientId: 1n, ...fields });

describe("the profile's quick-reply limits are used when they are non-negative whole numbers", () => {
  it.each([
    [0, 0],
    [1, 1],
    [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
    [-1, undefined],
    [1.5, undefined],
    [Number.POSITIVE_INFINITY, undefined],
    [Number.NaN, undefined],
    ['3', undefined],
    [3n, undefined],
  ])('%s: %s', (limit, usable) => {
    expect(usableLimits({ maxQuickReplies: limit as number, maxQuickReplyLength: limit as number })).toEqual(
      usable === undefined ? {} : { maxQuickReplies: usable, maxQuickReplyLength: usable },
    );
  });

  it('a limit of 0 quick replies refuses any', () => {
    expectOnly(
      validateReply(hi({ quickReplies: [{ type: 'TEXT', text: 'a' }] }), { limits: { maxQuickReplies: 0 } }),
      'quickReplies',
      "1 quick replies, limit 0 (the profile's maxQuickReplies)",
    );
  });

  it('a limit of 1.5 is not used', () => {
    const twoReplies = hi({
      quickReplies: [
        { type: 'TEXT', text: 'a' },
        { type: 'TEXT', text: 'b' },
      ],
    });
    expectValid(validateReply(twoReplies, { limits: { maxQuickReplies: 1.5 } }));
  });
});

describe('receivedAt', () => {
  it.each(['2026-01-01T00:00:00.000Z', '2026-12-31T23:59:59.999Z', '2024-02-29T12:00:00.000Z'])(
    'passes %s, the first or last of its kind',
    (receivedAt) => {
      expectValid(validateReply(hi({ receivedAt })));
    },
  );

  it.each([
    ['with something before it', 'x2026-01-31T09:30:00.000Z'],
    ['with something after it', '2026-01-31T09:30:00.000Zx'],
  ])('fails %s', (_, receivedAt) => {
    expectOnly(
      validateReply(hi({ receivedAt })),
      'receivedAt',
      `expected a UTC time as yyyy-MM-ddTHH:mm:ss.SSSZ, such as 2026-01-31T09:30:00.000Z, got ${JSON.stringify(receivedAt)}`,
    );
  });
});

describe('action', () => {
  it('an empty action is an error and nothing more: no warning about an unknown action', () => {
    const result = validateReply(hi({ action: '' }));
    expectOnly(result, 'action', 'must not be empty');
    expect(result.warnings).toEqual([]);
  });
});

describe('the JSON Schema', () => {
  it('segmentationInfo refuses an empty key', () => {
    const schema = z.toJSONSchema(segmentationInfoSchema) as { propertyNames?: Record<string, unknown> };
    expect(schema.propertyNames).toMatchObject({ type: 'string', minLength: 1 });
  });

  it.each([
    ['reply', replySchema],
    ['greet', greetingSchema],
    ['reason', reasonSchema],
  ] as const)('the %s schema says that lengths count UTF-16 code units, not code points', (_, schema) => {
    const description = (z.toJSONSchema(schema, { unrepresentable: 'any' }) as { description?: string }).description;
    expect(description).toContain(
      "Lengths are counted as the service counts them, in UTF-16 code units, while JSON Schema's maxLength counts code points",
    );
  });
});
