import { expect } from 'vitest';
import type { Problem } from '../../src/errors.js';
import type { Validation } from '../../src/payload/index.js';

/** A path as segments: keys and array indexes. */
export type Segments = readonly (string | number)[];

/** A bot answer that uses every nested object and is valid with no warnings. */
export function fullReply(): Record<string, unknown> {
  return {
    text: 'Hello',
    coreClientId: 1n,
    attachments: [{ url: 'https://example.com/files/a.png', name: 'a.png', type: 'image/png' }],
    quickReplies: [{ type: 'TEXT', text: 'Yes' }],
    settings: { blockInput: true, masked: false },
    quickRepliesHeaderFooter: { header: [{ text: 'Head' }], footer: [{ text: 'Foot' }] },
    messageListPicker: {
      header: { text: 'Pick one' },
      footer: { text: 'Thanks' },
      title: 'Open',
      sections: [{ title: 'Section', items: [{ title: 'Item', subTitle: 'More', identifier: 'item-1' }] }],
    },
  };
}

/** A greeting that uses every nested object and is valid with no warnings. */
export function fullGreeting(): Record<string, unknown> {
  const { text, coreClientId, quickReplies, settings, quickRepliesHeaderFooter, messageListPicker } = fullReply();
  return { text, coreClientId, quickReplies, settings, quickRepliesHeaderFooter, messageListPicker };
}

/** An inactivity reason with every field, valid. */
export function fullReason(): Record<string, unknown> {
  return { code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }], color: '#FFFFFF', active: true, system: false };
}

/** A deep copy of a payload with `value` set at `path` (or the field removed when value is undefined). */
export function withValue(base: Record<string, unknown>, path: Segments, value: unknown): Record<string, unknown> {
  const copy = structuredClone(base);
  let target: Record<string | number, unknown> = copy;
  for (const segment of path.slice(0, -1)) target = target[segment] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (value === undefined) delete target[last];
  else target[last] = value;
  return copy;
}

export function problemsOf(result: Validation<unknown>): Problem[] {
  return result.ok ? [] : result.problems;
}

export function expectValid(result: Validation<unknown>): void {
  expect(problemsOf(result)).toEqual([]);
  expect(result.ok).toBe(true);
}

export function expectOnly(result: Validation<unknown>, path: string, message: string): void {
  expect(problemsOf(result)).toEqual([{ path, message }]);
}

/** A string of exactly `length` UTF-16 code units. */
export function chars(length: number, fill = 'a'): string {
  return fill.repeat(length);
}

/** An absolute https URL of exactly `length` characters. */
export function urlOf(length: number): string {
  const prefix = 'https://example.com/';
  return prefix + 'a'.repeat(length - prefix.length);
}
