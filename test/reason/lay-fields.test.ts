import { describe, expect, it } from 'vitest';
import { layFields } from '../../src/commands/reason/build.js';

/** The flags of `core reason update` laid over each reason of a file (docs/reasons.md, "Flags together with a file"). */
describe('flags laid over a reason from a file', () => {
  const item = () => ({ code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }], active: true });

  it('give the reason itself when no flag is given and it has no $schema (nothing to copy)', () => {
    const reason = item();
    expect(layFields(reason, {})).toBe(reason);
  });

  it.each([
    ['--color', { color: '#FF0000' }, { color: '#FF0000' }],
    ['--inactive', { active: false }, { active: false }],
    ['--system', { system: true }, { system: true }],
    ['--code', { code: 'BREAK' }, { code: 'BREAK' }],
    ['--name', { names: ['de=Pause'] }, { reasons: [{ locale: 'de', name: 'Pause' }] }],
  ])('with %s, give a copy with the flag laid over, the file’s reason unchanged', (_flag, fields, changed) => {
    const reason = item();
    const laid = layFields(reason, fields);
    expect(laid).not.toBe(reason);
    expect(laid).toEqual({ ...item(), ...changed });
    expect(reason).toEqual(item());
  });

  it('give a copy without $schema, the file’s reason unchanged', () => {
    const reason = { $schema: 'https://example.com/reason.json', ...item() };
    expect(layFields(reason, {})).toEqual(item());
    expect(reason.$schema).toBe('https://example.com/reason.json');
  });

  it('leave what is not an object as it is, for the checks to refuse', () => {
    expect(layFields('LUNCH', { color: '#FF0000' })).toBe('LUNCH');
    expect(layFields(null, {})).toBe(null);
  });
});
