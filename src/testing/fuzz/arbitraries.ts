import * as fc from 'fast-check';
import { CHANNELS } from '../../payload/channels.js';
import { MAX_CUSTOMER_TEXT } from '../../payload/customer-text.js';
import { TEXT_CLASSES, type FuzzAttachment, type FuzzConversation, type FuzzMessage, type JsonFormat, type TextSpec } from './model.js';

/**
 * The fast-check arbitraries of `core check-bot --fuzz` (docs/check-bot.md, "What the fuzzer
 * generates"). Each choice shrinks toward the plainest delivery: a short ASCII text typed on WEB,
 * canonical JSON, no attachment, no unknown field, small ids, one message. The order of the fields
 * of each record is the order fast-check shrinks them in: a text's segments go before its length,
 * so a long text is shrunk to its length alone (a text of exactly 1,001 characters, not 990 letters
 * and an emoji), and a piece's pick toward the simplest piece of its class.
 *
 * Loaded only by the fuzzer's path (src/commands/check-bot/), so `core check-bot` without --fuzz
 * never loads fast-check.
 */

const segment = fc.record({
  cls: fc.constantFrom(...TEXT_CLASSES),
  pick: fc.nat({ max: 15 }),
  repeat: fc.integer({ min: 1, max: 12 }),
});

/** Lengths of every size up to the bound: fast-check's bias gives short ones often and the bound itself now and then. */
const textSpec: fc.Arbitrary<TextSpec> = fc.record({
  segments: fc.array(segment, { maxLength: 6 }),
  length: fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 1, max: MAX_CUSTOMER_TEXT }) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 60 }) },
  ),
  blank: fc.constant(false),
});

const format: fc.Arbitrary<JsonFormat> = fc.record({
  indent: fc.constantFrom<JsonFormat['indent'][]>(0, 2, 4, '\t'),
  spaced: fc.boolean(),
  order: fc.constantFrom<JsonFormat['order'][]>('contract', 'reversed', 'sorted'),
  escape: fc.constantFrom<JsonFormat['escape'][]>('none', 'non-ascii', 'all'),
});

/** File names that break software too: no extension, spaces, a right-to-left override, a path. */
const attachment: fc.Arbitrary<FuzzAttachment> = fc.record({
  name: fc.constantFrom(
    'photo.jpg',
    'invoice 2026.pdf',
    'no-extension',
    '\u202Egnp.exe',
    '../../etc/passwd',
    '\u{1F4F7}.png',
    'a'.repeat(200),
  ),
  type: fc.constantFrom<(string | null)[]>('image/jpeg', null, 'application/pdf', 'application/octet-stream', 'text/html'),
});

const message: fc.Arbitrary<FuzzMessage> = fc
  .record({
    text: textSpec,
    action: fc.constantFrom<FuzzMessage['action'][]>('text', 'press', 'pick'),
    attachments: fc.array(attachment, { maxLength: 2 }),
    blankWithFiles: fc.boolean(),
    unknownFields: fc.boolean(),
    largeIds: fc.boolean(),
    format,
    burst: fc.boolean(),
    redeliver: fc.boolean(),
  })
  .map(({ blankWithFiles, ...rest }) => ({
    ...rest,
    // A message with files may come without words: an attachment where a text was expected.
    // (Not yet: the sandbox checks a delivery against its contract before the probe adds the files, so blank stays false.)
    text: { ...rest.text, blank: blankWithFiles && false },
  }));

/** Above 2^53 and odd: no double holds it, so a bot that reads it as a JavaScript number answers another id. */
const largeClientId = fc.bigInt({ min: 2n ** 52n, max: 2n ** 62n - 1n }).map((half) => half * 2n + 1n);

export function conversationArbitrary(): fc.Arbitrary<FuzzConversation> {
  return fc.record({
    channel: fc.constantFrom(...CHANNELS),
    coreClientId: fc.option(largeClientId, { freq: 4 }),
    // minLength 0 and a filter rather than minLength 1: fast-check's array shrinker removes items from the
    // front, and its pass over the tail cannot empty a tail held to minLength, so [failing, plain] would
    // never lose the plain message.
    messages: fc.array(message, { maxLength: 5 }).filter((messages) => messages.length > 0),
  });
}

/**
 * The conversation at `path` of the run of `seed` (fast-check's replay path: the run's index, then the
 * shrinks taken), exactly as `fc.check` with that seed and path would play it.
 */
export function conversationAt(seed: number, path: string): FuzzConversation {
  const [value] = fc.sample(conversationArbitrary(), { seed, path, numRuns: 1 });
  if (value === undefined) throw new Error(`no conversation at ${seed}:${path}`);
  return value;
}

/** The first `count` conversations of the run of `seed`, in the order fast-check generates them. */
export function conversations(seed: number, count: number): FuzzConversation[] {
  return fc.sample(conversationArbitrary(), { seed, numRuns: count });
}
