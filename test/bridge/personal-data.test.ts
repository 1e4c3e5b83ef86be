import { describe, expect, it } from 'vitest';
import { loosePattern } from '../../src/testing/record.js';
import { toPattern } from '../../src/testing/pattern.js';
import { PersonalDataMask } from '../../src/testing/personal-data.js';

/** Tests saved from real conversations (docs/bridge.md, "Tests from real conversations"). */

describe('personal data in a saved conversation', () => {
  it.each([
    ['Mail jane.doe@corp.example today', 'Mail person-1@example.com today'],
    ['Card 4111 1111 1111 1111 please', 'Card 0000 0000 0000 0001 please'],
    ['Card 4111-1111-1111-1111', 'Card 0000 0000 0000 0001'],
    ['Call +44 20 7946 0958', 'Call +1 555 0101'],
    ['Call (555) 123-4567 now', 'Call +1 555 0101 now'],
    ['Call 0201234567', 'Call +1 555 0101'],
    ['Order 1234567 shipped (7 digits)', 'Order 1234567 shipped (7 digits)'],
    ['No personal data here', 'No personal data here'],
  ])('%j becomes %j', (text, masked) => {
    expect(new PersonalDataMask().mask(text)).toBe(masked);
  });

  it('replaces the same value by the same placeholder, another by the next', () => {
    const mask = new PersonalDataMask();
    expect(mask.mask('a@b.example and c@d.example')).toBe('person-1@example.com and person-2@example.com');
    expect(mask.mask('again a@b.example')).toBe('again person-1@example.com');
    expect(mask.replaced).toEqual({ email: 2, card: 0, phone: 0 });
  });
});

describe('a loose expectation', () => {
  it.each([
    ['Order 123 ships in 2 days', ['Order 98765 ships in 14 days'], ['Order ships in 2 days', 'Order 123 ships in two days']],
    ['Total: $4.50 (1 item)', ['Total: $12.99 (3 item)'], ['Total: 4.50 (1 item)']],
  ])('%j matches the same text with any numbers, and nothing else', (text, matching, other) => {
    const pattern = toPattern(loosePattern(text));
    expect(pattern.kind).toBe('regex');
    const regex = pattern.kind === 'regex' ? pattern.regex : /$^/;
    expect(regex.test(text)).toBe(true);
    for (const each of matching) expect(regex.test(each)).toBe(true);
    for (const each of other) expect(regex.test(each)).toBe(false);
  });
});
