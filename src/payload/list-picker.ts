import * as z from 'zod/mini';
import { isRecord, nonEmptyArray, report, reportRepeat, rule, text } from './checks.js';
import { formatCount } from './messages.js';

/** docs/api.md, list rule 3: at most 10 items in total across all sections. */
export const MAX_LIST_ITEMS = 10;

/**
 * An item of the list. The API leaves title and identifier "unmarked" (docs/api.md, gap 16); both are required here:
 * an item without a name shows nothing to choose, and the identifier is what comes back in the
 * user's answer, so an item without one cannot be told apart. subTitle is marked "no" (optional).
 */
const itemSchema = z
  .strictObject({
    title: text('Item name, up to 24 characters.', 24),
    subTitle: z.optional(text('Item subtitle, up to 72 characters.', 72)),
    identifier: text("Item ID, returned in the user's answer message; unique across the whole message."),
  })
  .check(z.describe('An item of the list.'));

/**
 * A section of the list. Its title is "unmarked" and optional here: a list with one section reads
 * well without one. Its items are required and non-empty: a section without items shows nothing.
 */
const sectionSchema = z
  .strictObject({
    title: z.optional(text('Section title shown to the user, up to 24 characters.', 24)),
    // No section can hold more than the whole list may (list rule 3, checked across sections on the list):
    // the part of that rule a JSON Schema can say.
    items: z
      .array(itemSchema)
      .check(nonEmptyArray(), z.meta({ description: 'Items of the section.', minItems: 1, maxItems: MAX_LIST_ITEMS })),
  })
  .check(z.describe('A section of the list.'));

/** header and footer are optional objects ("no"); their only field, text, is what they are for. */
const headerSchema = z.strictObject({ text: text('Header text, up to 60 characters.', 60) }).check(z.describe('Header of the list.'));
const footerSchema = z.strictObject({ text: text('Footer text, up to 60 characters.', 60) }).check(z.describe('Footer of the list.'));

type Item = { section: number; item: number; value: Record<string, unknown> };

function itemsOf(picker: Record<string, unknown>): Item[] {
  const out: Item[] = [];
  if (!Array.isArray(picker.sections)) return out;
  picker.sections.forEach((section: unknown, s) => {
    if (!isRecord(section) || !Array.isArray(section.items)) return;
    section.items.forEach((item: unknown, i) => {
      if (isRecord(item)) out.push({ section: s, item: i, value: item });
    });
  });
  return out;
}

/**
 * The interactive list (docs/api.md, "messageListPicker"; instant-messenger channel only, list rule 1). title (the button
 * that opens the list) is "unmarked" and required here: without a button the list cannot be opened.
 * sections is required and non-empty: a list without sections has nothing to pick.
 *
 * Two rules span the sections, so they are checked on the whole list: at most 10 items in total,
 * and each identifier used once across the whole message.
 */
export const messageListPickerSchema = z
  .strictObject({
    header: z.optional(headerSchema),
    footer: z.optional(footerSchema),
    title: text('Name of the button that opens the list, up to 20 characters.', 20),
    sections: z.array(sectionSchema).check(
      nonEmptyArray(),
      // Every section holds an item, so there are no more sections than items (list rule 3, checked below).
      z.meta({
        description: `Sections of the list; at most ${MAX_LIST_ITEMS} items in total across all sections.`,
        minItems: 1,
        maxItems: MAX_LIST_ITEMS,
      }),
    ),
  })
  .check(
    rule((value, ctx) => {
      const picker = value as Record<string, unknown>;
      const items = itemsOf(picker);
      let total = 0;
      if (Array.isArray(picker.sections)) {
        for (const section of picker.sections) {
          if (isRecord(section) && Array.isArray(section.items)) total += section.items.length;
        }
      }
      if (total > MAX_LIST_ITEMS) {
        report(ctx, ['sections'], `${formatCount(total)} items across all sections, limit ${MAX_LIST_ITEMS}`, total);
      }
      const seen = new Map<string, Item>();
      for (const entry of items) {
        const id = entry.value.identifier;
        if (typeof id !== 'string' || id === '') continue;
        const first = seen.get(id);
        if (!first) {
          seen.set(id, entry);
          continue;
        }
        reportRepeat(
          ctx,
          ['sections', entry.section, 'items', entry.item, 'identifier'],
          ['sections', first.section, 'items', first.item, 'identifier'],
          `identifier ${JSON.stringify(id)} is already used at {first}; identifiers must be unique across the message`,
          id,
        );
      }
    }),
    z.describe(
      `Interactive list; instant-messenger channel only. Rules a JSON Schema cannot express: at most ${MAX_LIST_ITEMS} items across all sections (this schema bounds each section and the number of sections only), and each item identifier unique across the whole message.`,
    ),
  );
export type MessageListPicker = z.output<typeof messageListPickerSchema>;
