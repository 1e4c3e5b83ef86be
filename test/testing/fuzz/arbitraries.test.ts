import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conversationArbitrary, conversationAt, conversations } from '../../../src/testing/fuzz/arbitraries.js';
import type { FuzzConversation } from '../../../src/testing/fuzz/model.js';
import { TEXT_PIECES, textOf, wordsOf } from '../../../src/testing/fuzz/texts.js';

/** A conversation as comparable text (bigints included). */
const shown = (value: unknown) => JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? `${item}n` : item));

const texts = (conversation: FuzzConversation) => conversation.messages.map((message) => textOf(message.text));

/** The shrunk counterexample of a property that fails on `flaw`, with the path fast-check reports. */
async function shrunk(seed: number, flaw: (conversation: FuzzConversation) => boolean) {
  const result = await fc.check(
    fc.asyncProperty(conversationArbitrary(), async (conversation) => !flaw(conversation)),
    { seed, numRuns: 300 },
  );
  expect(result.failed).toBe(true);
  return { conversation: (result.counterexample as [FuzzConversation])[0], path: result.counterexamplePath! };
}

describe("the fuzzer's conversations", () => {
  it('are the values fast-check checks with the same seed, in the same order', async () => {
    const seen: FuzzConversation[] = [];
    await fc.check(
      fc.asyncProperty(conversationArbitrary(), async (conversation) => {
        seen.push(conversation);
        return true;
      }),
      { seed: 7, numRuns: 50 },
    );
    expect(shown(conversations(7, 50))).toBe(shown(seen));
    expect(shown(conversations(8, 50))).not.toBe(shown(seen));
  });

  it('hold within 300 runs every kind of delivery the fuzzer promises', () => {
    const all = conversations(42, 300);
    const messages = all.flatMap((conversation) => conversation.messages.map((message) => ({ conversation, message })));
    const kinds = {
      longText: messages.some(({ message }) => textOf(message.text).length === 4000),
      overAThousand: messages.filter(({ message }) => textOf(message.text).length > 1000).length,
      emailThreeDeep: all.some((c) => c.channel === 'EMAIL' && c.messages.length >= 3),
      press: messages.some(({ message }) => message.action === 'press'),
      pick: messages.some(({ message, conversation }) => wordsOf(message, conversation.channel, 0).listItem !== null),
      attachments: messages.some(({ message }) => message.attachments.length > 0),
      unknownFields: messages.some(({ message }) => message.unknownFields),
      largeIds: messages.some(({ message }) => message.largeIds) && all.some((c) => c.coreClientId !== null),
      nonCanonical: messages.some(({ message }) => message.format.indent !== 0 && message.format.escape !== 'none'),
      redelivery: messages.some(({ message }) => message.redeliver),
      burst: all.some((c) => c.messages.slice(1).some((message) => message.burst)),
    };
    expect(kinds).toEqual({ ...kinds, longText: true, emailThreeDeep: true, press: true, pick: true, attachments: true });
    expect(Object.entries(kinds).filter(([, present]) => present === false)).toEqual([]);
    expect(kinds.overAThousand).toBeGreaterThan(30);
    for (const [cls, pieces] of Object.entries(TEXT_PIECES)) {
      expect(
        messages.some(({ message }) => message.text.segments.some((segment) => segment.cls === cls)),
        cls,
      ).toBe(true);
      expect(pieces.length).toBeGreaterThan(0);
    }
  });

  it('keep a client id above 2^53 odd, so that no double holds it', () => {
    const ids = conversations(3, 200).flatMap((c) => (c.coreClientId === null ? [] : [c.coreClientId]));
    expect(ids.length).toBeGreaterThan(20);
    for (const id of ids) {
      expect(id > 2n ** 53n && id < 2n ** 63n && id % 2n === 1n).toBe(true);
      expect(BigInt(Number(id))).not.toBe(id);
    }
  });

  it('shrink a text over 1,000 characters to exactly 1,001 plain letters in one typed message on WEB', async () => {
    const { conversation } = await shrunk(11, (c) => texts(c).some((text) => text.length > 1000));
    expect(
      texts(conversation).map((text) => text.length),
      shown(conversation).slice(0, 900),
    ).toEqual([1001]);
    expect(texts(conversation)).toEqual(['a'.repeat(1001)]);
    expect(conversation.channel).toBe('WEB');
    expect(conversation.messages[0]).toMatchObject({
      action: 'text',
      attachments: [],
      unknownFields: false,
      largeIds: false,
      redeliver: false,
    });
  });

  it('shrink a right-to-left mark to a text of that mark alone', async () => {
    const { conversation } = await shrunk(12, (c) => texts(c).some((text) => text.includes('\u200F')));
    expect(texts(conversation)).toEqual(['\u200F']);
  });

  it('shrink an EMAIL thread two deep to two one-letter messages', async () => {
    const { conversation } = await shrunk(13, (c) => c.channel === 'EMAIL' && c.messages.length >= 2);
    expect(conversation.channel).toBe('EMAIL');
    expect(texts(conversation)).toEqual(['a', 'a']);
  });

  it('give back exactly the shrunk conversation from its seed and path', async () => {
    const { conversation, path } = await shrunk(14, (c) => c.messages.some((message) => message.redeliver && message.largeIds));
    expect(shown(conversationAt(14, path))).toBe(shown(conversation));
    expect(conversation.messages).toHaveLength(1);
  });
});

describe('texts', () => {
  it.each([
    [{ segments: [], length: 1, blank: false }, 'a'],
    [{ segments: [], length: 4000, blank: false }, 'a'.repeat(4000)],
    [{ segments: [], length: 4001, blank: false }, 'a'.repeat(4000)],
    [{ segments: [{ cls: 'rtl' as const, pick: 0, repeat: 2 }], length: 1, blank: false }, '\u200F\u200F'],
    [{ segments: [{ cls: 'rtl' as const, pick: 0, repeat: 1 }], length: 3, blank: false }, '\u200Faa'],
    [{ segments: [{ cls: 'nul' as const, pick: 2, repeat: 1 }], length: 1, blank: false }, '\u0000'],
    [{ segments: [], length: 9, blank: true }, ''],
  ])('text %# is made of its segments, then letters up to its length, cut to 4,000', (spec, text) => {
    expect(textOf(spec)).toBe(text);
  });

  it('make a pick a press off IM, where lists are not shown, and cut an item title to 24 characters', () => {
    const message = conversations(1, 1)[0]!.messages[0]!;
    const pick = { ...message, action: 'pick' as const, text: { segments: [], length: 30, blank: false } };
    expect(wordsOf(pick, 'IM', 2)).toEqual({
      text: 'a'.repeat(24),
      quickReply: null,
      listItem: { identifier: 'item-3', title: 'a'.repeat(24) },
    });
    expect(wordsOf(pick, 'WEB', 2)).toEqual({
      text: 'a'.repeat(30),
      quickReply: { type: 'TEXT', text: 'a'.repeat(30), payload: null },
      listItem: null,
    });
  });
});
