import * as z from 'zod/mini';
import { has, isRecord, maxItems, report, rule, text } from './checks.js';
import { usableLimits, type Limits } from './common.js';
import type { RawProblem } from './messages.js';

/** docs/api.md, quick-reply rule 1, type: TEXT for text messages; CONTACT to obtain client data. */
export const QUICK_REPLY_TYPES = ['TEXT', 'CONTACT'] as const;

const QUICK_REPLY_TEXT_MAX = 4000;

/**
 * One quick reply (docs/api.md, "Quick reply"). With limits from the profile, the text
 * is also held to message.max-quick-reply-length (quick-reply rule 4), whichever bound is tighter, so the one
 * schema carries the one limit that applies and `maxLengthOf` reports it to the composer.
 *
 * imageUrl and url are typed only as strings with a length bound (docs/api.md, quick-reply rule 2), so unlike an
 * attachment's url they are not required to be absolute http(s) URLs.
 */
function buildQuickReplySchema(limits: Limits) {
  const profileMax = limits.maxQuickReplyLength;
  const textMax = profileMax !== undefined && profileMax < QUICK_REPLY_TEXT_MAX ? profileMax : QUICK_REPLY_TEXT_MAX;
  const textNote = textMax < QUICK_REPLY_TEXT_MAX ? "the profile's maxQuickReplyLength" : undefined;
  return z
    .strictObject({
      type: z.enum(QUICK_REPLY_TYPES).check(z.describe('TEXT for text messages; CONTACT to obtain client data.')),
      text: text(`Message text, up to ${textMax} characters (UTF-16 code units).`, textMax, textNote),
      shown_text: z.optional(
        text(
          "Used only together with text. When present, this text is sent as the client's message after the button is pressed. Up to 2000 characters.",
          2000,
        ),
      ),
      callback_data: z.optional(
        text(
          "Name of the event passed when the client-side script API is invoked, for handling on the customer's website. Up to 255 characters.",
          255,
        ),
      ),
      imageUrl: z.optional(text('URL of the button icon, up to 4000 characters.', 4000)),
      url: z.optional(text('Link to an attached file, up to 4000 characters.', 4000)),
      // docs/api.md, gap 3: the examples carry payload (null there); its type and meaning are not shown.
      payload: z.optional(z.unknown().check(z.describe("Carried by the API's examples (null there); type and meaning not shown."))),
    })
    .check(z.describe('A quick-reply button.'));
}

export const quickReplySchema = buildQuickReplySchema({});
export type QuickReply = z.output<typeof quickReplySchema>;

function buildQuickRepliesSchema(limits: Limits) {
  const element = buildQuickReplySchema(limits);
  const max = limits.maxQuickReplies;
  const description =
    'Quick-reply buttons.' +
    (max === undefined
      ? " The service's configuration also bounds how many a message holds and how long each text is (message.max-quick-replies, message.max-quick-reply-length; values not shown by the API); core checks them when the profile's limits give them."
      : ` At most ${max} (the profile's maxQuickReplies).`);
  const array = z.array(element);
  return max === undefined
    ? array.check(z.describe(description))
    : array.check(maxItems(max, 'quick replies', "the profile's maxQuickReplies"), z.meta({ description, maxItems: max }));
}

const cache = new Map<string, ReturnType<typeof buildQuickRepliesSchema>>();

/** The quickReplies array under the given limits; one schema per distinct set of limits. */
export function quickRepliesSchemaFor(limits?: Limits): ReturnType<typeof buildQuickRepliesSchema> {
  const usable = usableLimits(limits);
  const key = `${usable.maxQuickReplies ?? ''}/${usable.maxQuickReplyLength ?? ''}`;
  let schema = cache.get(key);
  if (!schema) {
    schema = buildQuickRepliesSchema(usable);
    cache.set(key, schema);
  }
  return schema;
}

/** One quick reply under the given limits: for the composer, which validates each answer as it is typed. */
export function quickReplySchemaFor(limits?: Limits): typeof quickReplySchema {
  return quickRepliesSchemaFor(limits)._zod.def.element;
}

// quickRepliesHeaderFooter ----------------------------------------------------------------------

const HEADER_TEXT_MAX = 61;

/** The four kinds of header content named by docs/api.md, header-footer rule 3, and the fields of each. */
const HEADER_KINDS = [
  ['text', ['text']],
  ['image', ['imageUrl']],
  ['document', ['documentUrl', 'documentName']],
  ['video', ['videoUrl']],
] as const;

/** The kinds of content a header carries across all its entries, in the API's order. */
export function headerKinds(header: unknown): string[] {
  if (!Array.isArray(header)) return [];
  const entries = header.filter(isRecord);
  return HEADER_KINDS.filter(([, fields]) => entries.some((entry) => fields.some((f) => has(entry, f)))).map(([kind]) => kind);
}

/** A mix of two or three kinds, in words: `text, image and video`. */
function listKinds(kinds: readonly string[]): string {
  return `${kinds.slice(0, -1).join(', ')} and ${kinds.at(-1)}`;
}

/**
 * An entry of the header. Every field is optional: the API says the header "may carry" each of
 * them. The URLs have no bound in the API (docs/api.md, header-footer rule 2), so none is invented.
 */
const headerEntrySchema = z
  .strictObject({
    text: z.optional(text(`Header text, up to ${HEADER_TEXT_MAX} characters.`, HEADER_TEXT_MAX)),
    imageUrl: z.optional(text('Header image URL.')),
    documentUrl: z.optional(text('Header document URL.')),
    documentName: z.optional(text('Header document name.')),
    videoUrl: z.optional(text('Header video URL.')),
  })
  .check(z.describe('An entry of the header: text, image, document or video.'));

/** A footer entry "carries text": without it the entry would carry nothing, so text is required. */
const footerEntrySchema = z
  .strictObject({ text: text(`Footer text, up to ${HEADER_TEXT_MAX} characters.`, HEADER_TEXT_MAX) })
  .check(z.describe('An entry of the footer.'));

/**
 * docs/api.md, header-footer rule 3 (instant-messenger channel only): "Text, image, document and video
 * cannot all be sent in the header at the same time." All four kinds at once, across the header's
 * entries, is an error; fewer kinds mixed is allowed by the API and only warned about (see
 * `headerFooterWarnings`).
 */
const headerSchema = z.array(headerEntrySchema).check(
  rule(
    (value, ctx) => {
      if (headerKinds(value).length === HEADER_KINDS.length) {
        report(ctx, [], 'carries text, image, document and video at once; the header cannot send all four at the same time');
      }
    },
    (payload) => Array.isArray(payload.value),
  ),
  z.meta({
    description: 'Header entries. Text, image, document and video cannot all be sent at the same time.',
    // The same rule as JSON Schema: not an entry of each kind, an entry being of a kind when it has one of its fields.
    not: {
      allOf: HEADER_KINDS.map(([, fields]) => ({
        contains:
          fields.length === 1
            ? { type: 'object', required: fields }
            : { type: 'object', anyOf: fields.map((field) => ({ required: [field] })) },
      })),
    },
  }),
);

export const quickRepliesHeaderFooterSchema = z
  .strictObject({
    header: z.optional(headerSchema),
    footer: z.optional(z.array(footerEntrySchema).check(z.describe('Footer entries.'))),
  })
  .check(
    z.describe(
      'Header and footer of the quick replies; instant-messenger channel only. The header must not carry text, image, document and video all at once (a mix of fewer kinds is warned about).',
    ),
  );
export type QuickRepliesHeaderFooter = z.output<typeof quickRepliesHeaderFooterSchema>;

/**
 * A header mixing two or three kinds of content (docs/api.md, gap 23): the API forbids only all four at once and says
 * nothing of how a mix displays, so it is worth a warning.
 */
export function headerFooterWarnings(root: unknown): RawProblem[] {
  if (!isRecord(root) || !isRecord(root.quickRepliesHeaderFooter)) return [];
  const kinds = headerKinds(root.quickRepliesHeaderFooter.header);
  if (kinds.length < 2 || kinds.length === HEADER_KINDS.length) return [];
  return [
    {
      path: ['quickRepliesHeaderFooter', 'header'],
      message: `mixes ${listKinds(kinds)}; the API forbids only all four kinds at once and does not say how a mix is shown`,
    },
  ];
}
