import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { quickRepliesSchemaFor, quickReplySchemaFor, validateReply } from '../../src/payload/index.js';
import { jsonSchemaOf } from '../../src/schema/json-schema.js';
import { problemsOf } from './fixtures.js';

/** Quick replies under the profile's limits, and the header of quickRepliesHeaderFooter (src/payload/quick-reply.ts). */

const replies = (count: number) => Array.from({ length: count }, (_, i) => ({ type: 'TEXT', text: `r${i}` }));
const hi = (fields: Record<string, unknown>) => ({ text: 'Hi', coreClientId: 1n, ...fields });

describe('one schema per set of limits', () => {
  it('two profiles with different maxQuickReplies each get their own limit', () => {
    const payload = hi({ quickReplies: replies(2) });
    expect(problemsOf(validateReply(payload, { limits: { maxQuickReplies: 1 } }))).toEqual([
      { path: 'quickReplies', message: "2 quick replies, limit 1 (the profile's maxQuickReplies)" },
    ]);
    expect(problemsOf(validateReply(payload, { limits: { maxQuickReplies: 2 } }))).toEqual([]);
    expect(problemsOf(validateReply(payload, { limits: { maxQuickReplies: 1 } }))).toHaveLength(1);
  });

  it('one quick reply under a profile limit, for the composer', () => {
    expect(quickReplySchemaFor({ maxQuickReplyLength: 3 }).safeParse({ type: 'TEXT', text: 'abcd' }).success).toBe(false);
    expect(quickReplySchemaFor({ maxQuickReplyLength: 3 }).safeParse({ type: 'TEXT', text: 'abc' }).success).toBe(true);
    expect(quickReplySchemaFor().safeParse({ type: 'TEXT', text: 'a'.repeat(4000) }).success).toBe(true);
  });
});

describe('the JSON Schema of quickReplies', () => {
  type Node = { description?: string; maxItems?: number };

  it('without limits, says that the service bounds them', () => {
    const schema = z.toJSONSchema(quickRepliesSchemaFor()) as Node;
    expect(schema.description).toBe(
      "Quick-reply buttons. The service's configuration also bounds how many a message holds and how long each text is (message.max-quick-replies, message.max-quick-reply-length; values not shown by the API); core checks them when the profile's limits give them.",
    );
    expect(schema.maxItems).toBeUndefined();
  });

  it("with the profile's maxQuickReplies, gives it", () => {
    const schema = z.toJSONSchema(quickRepliesSchemaFor({ maxQuickReplies: 3 })) as Node;
    expect(schema.description).toBe("Quick-reply buttons. At most 3 (the profile's maxQuickReplies).");
    expect(schema.maxItems).toBe(3);
  });
});

describe('the header of quickRepliesHeaderFooter', () => {
  it('that is not an array is a problem, and no warning', () => {
    expect(validateReply(hi({ quickRepliesHeaderFooter: { header: 'x' } }))).toEqual({
      ok: false,
      problems: [{ path: 'quickRepliesHeaderFooter.header', message: 'expected an array, got "x"' }],
      warnings: [],
    });
  });

  it('with an entry that is not an object is a problem, and the other entries still count', () => {
    const result = validateReply(hi({ quickRepliesHeaderFooter: { header: [null, { text: 'a' }, { imageUrl: 'https://x.io/i.png' }] } }));
    expect(problemsOf(result)).toEqual([{ path: 'quickRepliesHeaderFooter.header[0]', message: 'expected an object, got null' }]);
    expect(result.warnings).toEqual([
      {
        path: 'quickRepliesHeaderFooter.header',
        message: 'mixes text and image; the API forbids only all four kinds at once and does not say how a mix is shown',
      },
    ]);
  });
});

describe('the JSON Schema of the header, as `core schema reply` and `core schema greet` print it', () => {
  type Node = { properties: Record<string, Node>; not?: unknown };

  it.each(['reply', 'greet'] as const)(
    '%s: not an entry of each kind, a kind of one field written as that field required, the document as either of its two',
    (kind) => {
      const header = (jsonSchemaOf(kind) as Node).properties.quickRepliesHeaderFooter!.properties.header!;
      expect(header.not).toEqual({
        allOf: [
          { contains: { type: 'object', required: ['text'] } },
          { contains: { type: 'object', required: ['imageUrl'] } },
          { contains: { type: 'object', anyOf: [{ required: ['documentUrl'] }, { required: ['documentName'] }] } },
          { contains: { type: 'object', required: ['videoUrl'] } },
        ],
      });
    },
  );
});
