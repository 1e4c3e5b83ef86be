import * as z from 'zod/mini';
import { isRecord, nonEmptyArray, reportRepeat, rule, text } from './checks.js';
import { LENGTH_NOTE } from './common.js';
import { describeValue } from './messages.js';
import { validateWith, type Validation } from './validate.js';

/**
 * reasons[].locale: "two-letter language code" (docs/api.md, reason field rule 2; gap 24). Both `en`
 * and `EN` are accepted: the API shows no case, and language tags are case-insensitive (BCP 47,
 * which Java's Locale follows), so rejecting one would refuse a valid code. Since `en` and `EN` name
 * the same language, a repeat is compared without case.
 */
const LOCALE = /^[A-Za-z]{2}$/;

/** color: "RGB hex form such as #FFFFFF or #ffffff": both cases, always six digits. */
const COLOR = /^#[0-9A-Fa-f]{6}$/;

export const localeSchema = z.string().check(
  z.regex(LOCALE, {
    error: (issue) => `expected a two-letter language code such as "en", got ${describeValue(issue.input)}`,
  }),
  z.describe('Language of the translation: a two-letter language code (either case).'),
);

export const reasonTranslationSchema = z
  .strictObject({
    locale: localeSchema,
    name: text('Translation of the reason in the given locale, 1 to 50 characters.', 50),
  })
  .check(z.describe('A translation of the reason.'));
export type ReasonTranslation = z.output<typeof reasonTranslationSchema>;

export const colorSchema = z
  .string()
  .check(
    z.regex(COLOR, { error: (issue) => `expected a colour as #RRGGBB, such as #FFFFFF, got ${describeValue(issue.input)}` }),
    z.describe('Colour of the reason, in RGB hex form such as #FFFFFF or #ffffff.'),
  );

/** Each language once: two translations for one locale contradict each other, and the API does not say which one the service keeps (docs/api.md, gap 24). */
const uniqueLocales = rule(
  (value, ctx) => {
    if (!Array.isArray(value)) return;
    const seen = new Map<string, number>();
    value.forEach((translation: unknown, index) => {
      if (!isRecord(translation) || typeof translation.locale !== 'string' || !LOCALE.test(translation.locale)) return;
      const key = translation.locale.toLowerCase();
      const first = seen.get(key);
      if (first === undefined) seen.set(key, index);
      else {
        reportRepeat(
          ctx,
          [index, 'locale'],
          [first, 'locale'],
          `locale ${JSON.stringify(translation.locale)} is repeated (locales compare without case); first at {first}`,
          translation.locale,
        );
      }
    });
  },
  (payload) => Array.isArray(payload.value),
);

/**
 * Inactivity reason: the request body of PUT /api/v1/inactivity/reasons (docs/api.md, "Inactivity reason").
 * code and reasons are required; a reason without a translation has no name to show, so reasons
 * must hold at least one. active defaults to true on the service; the schema adds no default (no
 * transforms), so an absent field stays absent. system is carried by the request example (false)
 * and is accepted as a boolean.
 */
export const reasonSchema = z
  .strictObject({
    code: text('Unique code of the reason; identifies the reason to update. 1 to 256 characters.', 256),
    reasons: z
      .array(reasonTranslationSchema)
      .check(
        nonEmptyArray(),
        uniqueLocales,
        z.meta({ description: 'Translations of the reason, at least one, each locale once (compared without case).', minItems: 1 }),
      ),
    color: z.optional(colorSchema),
    active: z.optional(z.boolean().check(z.describe('Whether the reason is currently available. The service defaults to true.'))),
    system: z.optional(z.boolean().check(z.describe('Carried by the request example (false); meaning not described.'))),
  })
  .check(
    z.describe(
      `Inactivity reason: the request body of PUT /api/v1/inactivity/reasons. Rule a JSON Schema cannot express: each locale at most once, compared without case. ${LENGTH_NOTE}`,
    ),
  );
export type Reason = z.output<typeof reasonSchema>;

/** Validates an inactivity reason (PUT /api/v1/inactivity/reasons). */
export function validateReason(input: unknown): Validation<Reason> {
  return validateWith(reasonSchema, input);
}
